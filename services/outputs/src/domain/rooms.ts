// The relay configuration's rooms and tokens: one reader for every service, in the protocol package.
export { parseRelayRooms as parseRooms, type RelayRoomTokens as RoomTokens } from '@live-captions/protocol';
