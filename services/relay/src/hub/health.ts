import { RELAY_PROTOCOL } from '@live-captions/protocol';
import type { Hub } from './hub.js';
import type { RelayStats } from './types.js';

/** Body of `GET /health`. */
export interface RelayHealth extends RelayStats {
  ready: boolean;
  protocol: typeof RELAY_PROTOCOL;
  connections: number;
  rooms: number;
  retainedMessages: number;
  retainedBytes: number;
  /** This node's name (RELAY_NODE_ID). */
  node: string;
  /** `off`: in-memory relay; `up` / `down`: cluster mode and whether Redis is reachable and in sync. */
  redis: 'off' | 'up' | 'down';
}

export interface NodeState {
  id: string;
  redis: 'off' | 'up' | 'down';
}

export function relayHealth(hub: Hub, ready: boolean, node: NodeState): RelayHealth {
  hub.expireAll();
  return {
    // A node without Redis takes no sockets: not ready, so that a balancer leaves it out.
    ready: ready && node.redis !== 'down',
    node: node.id,
    redis: node.redis,
    protocol: RELAY_PROTOCOL,
    connections: hub.connectionCount,
    rooms: hub.roomCount,
    retainedMessages: hub.retention.messages,
    retainedBytes: hub.retention.bytes,
    ...hub.stats,
  };
}
