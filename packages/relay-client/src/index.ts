// Browser-safe entry: no Node imports. In Node 20 pass `WebSocket` from `ws` (or use ./node.js).
export {
  RELAY_PROTOCOL_FAULT,
  RELAY_SILENT,
  type RelayClientEvent,
  type RelayClientState,
  RelayConnection,
  type RelayConnectionOptions,
  type SocketConstructor,
  type SocketLike,
  silenceLimitMs,
} from './connection.js';
export { type CaptionInput, RelayPublisher, type RelayPublisherOptions } from './publisher.js';
export { RelayReader, type RelayReaderOptions } from './reader.js';
