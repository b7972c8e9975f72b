import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { Hub, RelayStats } from '../hub.js';
import { type RelayHealth, relayHealth } from './health.js';

const COUNTERS: Record<keyof RelayStats, string> = {
  accepted: 'WebSocket upgrades accepted',
  rejected: 'Upgrades refused (origin, path, caps) and joins refused',
  published: 'Captions published (duplicates excluded)',
  delivered: 'Captions written to read sockets, replays included',
  slowConsumers: 'Read sockets closed for not keeping up',
  duplicates: 'Publishes acked again without a second fan-out',
  replayed: 'Captions replayed to readers that joined with a cursor',
  gaps: 'Joins answered with a gap',
};

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A Prometheus registry of this relay: its counters and gauges plus the process defaults. */
export function relayMetrics(hub: Hub): Registry {
  const register = new Registry();
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
  // One scrape collects every gauge in the same synchronous turn (Registry.metrics maps over them
  // before awaiting), so they share one expiry pass and one reading; the next turn reads afresh.
  let snapshot: RelayHealth | undefined;
  const current = (): RelayHealth => {
    if (snapshot === undefined) {
      snapshot = relayHealth(hub, true);
      queueMicrotask(() => {
        snapshot = undefined;
      });
    }
    return snapshot;
  };
  for (const [key, help] of Object.entries(gauges) as [keyof typeof gauges, string][]) {
    new Gauge({
      name: `relay_${snake(key)}`,
      help,
      registers: [register],
      collect() {
        this.set(current()[key]);
      },
    });
  }
  return register;
}
