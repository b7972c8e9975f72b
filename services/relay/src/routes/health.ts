import { RELAY_PROTOCOL } from '@live-captions/protocol';
import type { Hub, RelayStats } from '../hub.js';

/** Body of `GET /health`. */
export interface RelayHealth extends RelayStats {
  ready: boolean;
  protocol: typeof RELAY_PROTOCOL;
  connections: number;
  rooms: number;
  retainedMessages: number;
  retainedBytes: number;
}

export function relayHealth(hub: Hub, ready: boolean): RelayHealth {
  hub.expireAll();
  return {
    ready,
    protocol: RELAY_PROTOCOL,
    connections: hub.connectionCount,
    rooms: hub.roomCount,
    retainedMessages: hub.retention.messages,
    retainedBytes: hub.retention.bytes,
    ...hub.stats,
  };
}
