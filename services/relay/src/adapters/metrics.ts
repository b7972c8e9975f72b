import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { type NodeState, type RelayHealth, relayHealth } from '../hub/health.js';
import type { Hub } from '../hub/hub.js';
import type { RelayStats } from '../hub/types.js';

const COUNTERS: Record<keyof RelayStats, string> = {
  accepted: 'WebSocket upgrades accepted',
  rejected: 'Upgrades refused (origin, path, caps) and joins refused',
  published: 'Captions published (duplicates excluded)',
  delivered: 'Captions written to read sockets, replays included',
  slowConsumers: 'Read sockets closed for not keeping up',
  duplicates: 'Publishes acked again without a second fan-out',
  replayed: 'Captions replayed to readers that joined with a cursor',
  gaps: 'Gaps told to readers, at their join or mid-stream',
};

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * This relay's Prometheus metrics: its counters and gauges plus the process defaults. `scrape`
 * takes one health reading (one retention expiry pass) for all the gauges of a scrape.
 */
export function relayMetrics(
  hub: Hub,
  node: () => NodeState,
): { contentType: string; scrape(): Promise<string> } {
  const register = new Registry();
  let reading: RelayHealth = relayHealth(hub, true, node());
  new Gauge({
    name: 'relay_node_info',
    help: 'This node (RELAY_NODE_ID) and its mode: redis is off (in memory), up or down',
    labelNames: ['node', 'redis'],
    registers: [register],
    collect() {
      this.reset();
      this.set({ node: reading.node, redis: reading.redis }, 1);
    },
  });
  new Gauge({
    name: 'relay_redis_up',
    help: 'Cluster mode: 1 while Redis is reachable and this node in sync, else 0 (in memory: 1)',
    registers: [register],
    collect() {
      this.set(reading.redis === 'down' ? 0 : 1);
    },
  });
  collectDefaultMetrics({ register, prefix: 'relay_' });
  for (const [key, help] of Object.entries(COUNTERS) as [keyof RelayStats, string][]) {
    new Counter({
      name: `relay_${snake(key)}_total`,
      help,
      registers: [register],
      collect() {
        this.reset();
        this.inc(hub.stats[key]);
      },
    });
  }
  const gauges = {
    connections: 'Open sockets',
    rooms: 'Configured rooms',
    retainedMessages: 'Captions retained for replay',
    retainedBytes: 'Bytes of captions retained for replay',
  } as const;
  for (const [key, help] of Object.entries(gauges) as [keyof typeof gauges, string][]) {
    new Gauge({
      name: `relay_${snake(key)}`,
      help,
      registers: [register],
      collect() {
        this.set(reading[key]);
      },
    });
  }
  return {
    contentType: register.contentType,
    scrape() {
      reading = relayHealth(hub, true, node());
      return register.metrics();
    },
  };
}
