/**
 * The worker's Prometheus metrics, read from its engine pool at each scrape: decodes completed,
 * failed and refused at their queue deadline, decodes running and jobs waiting for a slot.
 */
import type { EnginePool } from '@live-captions/inference';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

export function workerMetrics(pool: EnginePool, workerId: string): Registry {
  const register = new Registry();
  register.setDefaultLabels({ worker: workerId });
  collectDefaultMetrics({ register, prefix: 'worker_' });
  const counters = {
    completed: 'Jobs decoded and answered',
    failed: 'Jobs that failed in the engine',
    queueTimeouts: 'Jobs refused because their queue deadline had passed',
  } as const;
  for (const [key, help] of Object.entries(counters) as [keyof typeof counters, string][]) {
    new Counter({
      name: `worker_jobs_${key === 'queueTimeouts' ? 'queue_timeouts' : key}_total`,
      help,
      registers: [register],
      collect() {
        this.reset();
        this.inc(pool.stats[key]);
      },
    });
  }
  new Gauge({
    name: 'worker_decodes_running',
    help: 'Decodes running now',
    registers: [register],
    collect() {
      this.set(pool.running);
    },
  });
  new Gauge({
    name: 'worker_decode_slots',
    help: 'Concurrent decode slots (CAPTION_WORKERS)',
    registers: [register],
    collect() {
      this.set(pool.info.decodeSlots);
    },
  });
  return register;
}
