// The calendar app for the benchmark, in its own process so that the load generator does not
// share its event loop. Talks to main.ts over IPC: {port} once listening; 'reset' / 'read' the
// statements run, the time spent in PostgreSQL (knex query sent -> rows parsed) and the CPU
// time of this process. CALENDAR_BENCH_REUSE=0 turns off the reuse of rendered list events.
import type { AddressInfo } from 'node:net';
import { buildApp, openDatabase } from '@live-captions/calendar/embedded';

const db = await openDatabase({ url: process.env.DATABASE_URL, dataDir: '', poolSize: 10 });
const started = new Map<string, bigint>();
let dbNanos = 0n;
let queries = 0;
let cpuAt = process.cpuUsage();
db.knex.on('query', (q: { __knexQueryUid: string }) =>
  started.set(q.__knexQueryUid, process.hrtime.bigint()),
);
db.knex.on('query-response', (_r: unknown, q: { __knexQueryUid: string }) => {
  const t = started.get(q.__knexQueryUid);
  if (t !== undefined) dbNanos += process.hrtime.bigint() - t;
  started.delete(q.__knexQueryUid);
  queries++;
});

const app = buildApp({
  knex: db.knex,
  restRoot: '/wp-json',
  timezone: 'UTC',
  tokens: new Map(),
  cacheTtlMs: Number(process.env.CALENDAR_CACHE_TTL_MS ?? 1000),
  ...(process.env.CALENDAR_BENCH_REUSE === '0' ? { renderedEventsBytes: 0 } : {}),
});
const server = app.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

process.on('message', (message) => {
  if (message === 'reset') {
    dbNanos = 0n;
    queries = 0;
    cpuAt = process.cpuUsage();
    process.send?.({ reset: true });
  } else if (message === 'read') {
    const cpu = process.cpuUsage(cpuAt);
    process.send?.({ dbMs: Number(dbNanos / 1_000_000n), queries, cpuMs: (cpu.user + cpu.system) / 1000 });
  } else if (message === 'stop') {
    server.close();
    server.closeAllConnections();
    // Handlers of requests whose sockets just closed still run their queries: let them finish
    // rather than abort them (tarn logs every aborted acquire).
    const pool = db.knex.client.pool as { numUsed(): number; numPendingAcquires(): number };
    const settle = setInterval(() => {
      if (pool.numUsed() > 0 || pool.numPendingAcquires() > 0) return;
      clearInterval(settle);
      db.close().then(() => process.exit(0));
    }, 20);
  }
});
