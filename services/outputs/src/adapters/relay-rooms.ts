// Read by the one reader of the relay configuration's rooms (SIGHUP reads it again).
export { readRelayRooms as readRooms } from '@live-captions/relay-client/node';
