// Node entry: the same client with `ws` as the default WebSocket.
import { WebSocket } from 'ws';
import type { SocketConstructor } from './connection.js';
import { RelayPublisher, type RelayPublisherOptions } from './publisher.js';
import { RelayReader, type RelayReaderOptions } from './reader.js';

export * from './index.js';

export const NodeWebSocket = WebSocket as unknown as SocketConstructor;

export function createPublisher(options: RelayPublisherOptions): RelayPublisher {
  return new RelayPublisher({ WebSocket: NodeWebSocket, ...options });
}

export function createReader(options: RelayReaderOptions): RelayReader {
  return new RelayReader({ WebSocket: NodeWebSocket, ...options });
}

export {
  fetchCaptionRoom,
  fetchCaptionRooms,
  RoomsApiError,
  type RoomsApiProblem,
  relayHttpUrl,
} from './rooms-api.js';
export { readRelayRooms } from './rooms-file.js';
export { RoomsWatch, type RoomsWatchLogger, type RoomsWatchOptions, relayRoomsOf } from './rooms-watch.js';
