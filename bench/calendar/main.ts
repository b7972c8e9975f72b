// `pnpm bench calendar`: the calendar API on the real PostgreSQL with 10,000 seeded events.
// autocannon drives the default list (per_page 50), a category filter, a search and a single
// event at 50 connections against the app running in a child process; prints req/s,
// p50/p95/p99 and the share of request time spent in PostgreSQL. Never fails on timings.
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../services/calendar/src/adapters/db.js';
import { migrate } from '../../services/calendar/src/adapters/migrations.js';
import { seedEvents } from '../../services/calendar/src/adapters/seed.js';

// autocannon is a dev dependency of the calendar package.
const require = createRequire(new URL('../../services/calendar/package.json', import.meta.url));
interface Cannon
  extends Promise<{ requests: { average: number }; latency: { mean: number }; non2xx: number }> {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
const autocannon = require('autocannon') as (options: {
  url: string;
  connections: number;
  duration: number;
}) => Cannon;

const ADMIN_URL = process.env.CALENDAR_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const EVENTS = Number(process.env.CALENDAR_BENCH_EVENTS ?? 10_000);
const CONNECTIONS = Number(process.env.CALENDAR_BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.CALENDAR_BENCH_SECONDS ?? 10);
const ROOT = '/wp-json/cal/events/v1';

function ask<T>(child: ChildProcess, message: string, key: string): Promise<T> {
  return new Promise((resolve) => {
    const listener = (reply: Record<string, unknown>) => {
      if (key in reply) {
        child.off('message', listener);
        resolve(reply as T);
      }
    };
    child.on('message', listener);
    if (message) child.send(message);
  });
}

/** One autocannon run; latencies are collected per response for exact percentiles. */
async function load(url: string, seconds: number) {
  const latencies: number[] = [];
  const instance = autocannon({ url, connections: CONNECTIONS, duration: seconds });
  instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  const result = await instance;
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return { result, p50: at(50), p95: at(95), p99: at(99), count: latencies.length };
}

const name = `cal_bench_${randomBytes(5).toString('hex')}`;
const adminDb = await openDatabase({ url: ADMIN_URL, dataDir: '', poolSize: 1 });
const admin = adminDb.knex;
await admin.raw(`CREATE DATABASE ${name}`);
const url = new URL(ADMIN_URL);
url.pathname = `/${name}`;
let child: ChildProcess | undefined;

try {
  const db = await openDatabase({ url: url.toString(), dataDir: '', poolSize: 2 });
  await migrate(db.knex);
  const seedStart = Date.now();
  await seedEvents(db.knex, EVENTS, { timezone: 'UTC' });
  const sample = (await db
    .knex('cal_events')
    .where({ status: 'publish', password: '' })
    .orderBy('id')
    .first('id')) as {
    id: number;
  };
  const inWindow = await db
    .knex('cal_events')
    .where({ status: 'publish', hide_from_listings: false })
    .count({ n: '*' });
  const plan = await db.knex.raw(
    `EXPLAIN SELECT e.* FROM cal_events e WHERE NOT e.hide_from_listings AND e.status IN ('publish')
     AND e.start_utc >= now() - interval '1 day' AND e.end_utc <= now() + interval '24 months'
     ORDER BY e.start_utc, e.id LIMIT 50`,
  );
  await db.close();
  console.log(
    `seeded ${EVENTS} events (${inWindow[0]?.n} listable) in ${Date.now() - seedStart} ms, database ${name}`,
  );
  console.log(
    `default list plan: ${(plan.rows as Record<string, string>[]).map((r) => r['QUERY PLAN']).join(' / ')}`,
  );

  for (const cacheTtl of [0, 1000]) {
    child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        DATABASE_URL: url.toString(),
        LOG_LEVEL: 'silent',
        CALENDAR_CACHE_TTL_MS: String(cacheTtl),
      },
    });
    const { port } = await ask<{ port: number }>(child, '', 'port');
    const base = `http://127.0.0.1:${port}`;
    const cases: [string, string][] = [
      ['GET /events (default window, per_page=50)', `${ROOT}/events?per_page=50`],
      ['GET /events?categories=music', `${ROOT}/events?categories=music`],
      ['GET /events?search=jazz', `${ROOT}/events?search=jazz`],
      ['GET /events/{id}', `${ROOT}/events/${sample.id}`],
    ];
    const rows: string[] = [];
    for (const [label, path] of cases) {
      const check = await fetch(`${base}${path}`);
      const body = (await check.json()) as { total?: number };
      if (check.status !== 200) throw new Error(`${label}: HTTP ${check.status}`);
      if (cacheTtl === 0) console.log(`${label}: ${body.total ?? 1} matching`);
      await load(`${base}${path}`, 2); // warm-up
      await ask(child, 'reset', 'reset');
      const run = await load(`${base}${path}`, SECONDS);
      const { dbMs, queries } = await ask<{ dbMs: number; queries: number }>(child, 'read', 'dbMs');
      const totalMs = run.result.latency.mean * run.count;
      rows.push(
        `| ${label} | ${run.result.requests.average.toFixed(0)} | ${run.p50.toFixed(1)} | ${run.p95.toFixed(1)} | ` +
          `${run.p99.toFixed(1)} | ${((dbMs / totalMs) * 100).toFixed(0)}% | ${(queries / run.count).toFixed(2)} | ${run.result.non2xx} |`,
      );
    }
    child.send('stop');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = undefined;
    const mode =
      cacheTtl === 0
        ? 'GET cache off (every request queries PostgreSQL)'
        : `GET cache on (TTL ${cacheTtl} ms, the service default)`;
    console.log(`\n${EVENTS} events, ${CONNECTIONS} connections, ${SECONDS} s per case; ${mode}\n`);
    console.log(
      '| request | req/s | p50 ms | p95 ms | p99 ms | time in PostgreSQL | queries/req | non-2xx |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  }
} finally {
  if (child) {
    child.send('stop');
    await new Promise((resolve) => child!.once('exit', resolve));
  }
  await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminDb.close();
}
