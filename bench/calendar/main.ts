// `pnpm bench calendar`: the calendar API on the real PostgreSQL with 10,000 seeded events.
// autocannon drives the default list (per_page 50), its pages 1-40 in turn, a category filter,
// a search and a single event at 50 connections against the app running in a child process:
// GET cache off (uncached), GET cache off and no list memo (cold: every list counts, builds its
// events' JSON and renders them), GET cache on (cached). Prints one table with them side by side (req/s, p50/p95/p99, SQL
// statements and CPU ms of the app and of PostgreSQL per request) and the plan of each list
// statement (EXPLAIN (ANALYZE, BUFFERS)). Never fails on timings. `--tec`: instead, ours against
// the real The Events Calendar holding the same events, one sequential client (tec.ts).
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  dateBounds,
  eventListSql,
  migrate,
  openDatabase,
  seedEvents,
  viewerOf,
} from '@live-captions/calendar/embedded';
import { FROM_SOURCE } from '@live-captions/test-services';
import { benchImport } from './import.js';
import { ask } from './ipc.js';
import { compareWithTec } from './tec.js';
import { tecFromEnv } from './tec-seed.js';

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
  requests?: { path: string }[];
}) => Cannon;

interface PgClient {
  query(text: string, values: unknown[]): Promise<{ rows: Record<string, string>[] }>;
  escapeLiteral(text: string): string;
}

interface Measured {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  statements: number;
  appCpuMs: number;
  pgCpuMs: number;
  non2xx: number;
}

const ADMIN_URL = process.env.CALENDAR_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEC = process.argv.includes('--tec') ? tecFromEnv() : undefined;
if (process.argv.includes('--tec') && !TEC) {
  console.error('--tec needs TEC_DIR (an install of shared/tools/tec-setup) or TEC_URL and TEC_AUTH');
  process.exit(2);
}
// TEC takes ~15-60 ms of PHP per event to seed (tec-seed.php): fewer events by default there.
const EVENTS = Number(process.env.CALENDAR_BENCH_EVENTS ?? (TEC ? 2_000 : 10_000));
const CONNECTIONS = Number(process.env.CALENDAR_BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.CALENDAR_BENCH_SECONDS ?? 10);
const ROOT = '/wp-json/cal/events/v1';

/** One autocannon run (cycling through `paths` when given); exact percentiles per response. */
async function load(url: string, seconds: number, paths?: string[]) {
  const latencies: number[] = [];
  const instance = autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    ...(paths ? { requests: paths.map((path) => ({ path })) } : {}),
  });
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

/** Clock ticks of every backend seen, kept after it exits (the pool closes idle connections). */
const backendTicks = new Map<number, number>();

/**
 * CPU time (ms) the PostgreSQL backends of the bench database used so far, from /proc (the
 * server runs on this machine; 0 elsewhere). Clock ticks are 10 ms on Linux.
 */
async function backendCpuMs(): Promise<number> {
  const { rows } = (await admin.raw('SELECT pid FROM pg_stat_activity WHERE datname = ?', [name])) as {
    rows: { pid: number }[];
  };
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      backendTicks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // gone, or not on this machine
    }
  }
  return [...backendTicks.values()].reduce((sum, ticks) => sum + ticks, 0) * 10;
}

/** EXPLAIN (ANALYZE, BUFFERS) of the statement the list route builds for `filter`, as anonymous. */
async function explain(
  knex: typeof admin,
  filter: Parameters<typeof eventListSql>[0],
  limit: number,
): Promise<string[]> {
  const { text, values } = eventListSql(filter, viewerOf(undefined), limit, 0);
  const connection = (await knex.client.acquireConnection()) as PgClient;
  try {
    // Prepared, as the route runs it: the generic plan (plan_cache_mode of db.ts) is shown.
    await connection.query(`PREPARE bench_plan AS ${text}`, []);
    // EXECUTE takes its arguments as SQL text (PostgreSQL 15 has no EXPLAIN (GENERIC_PLAN)).
    const literal = (value: unknown): string => {
      if (value instanceof Date) return connection.escapeLiteral(value.toISOString());
      if (Array.isArray(value)) {
        return connection.escapeLiteral(`{${value.map((v) => JSON.stringify(String(v))).join(',')}}`);
      }
      return typeof value === 'string' ? connection.escapeLiteral(value) : String(value);
    };
    const args = values.map(literal).join(', ');
    const plan = await connection.query(
      `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE bench_plan(${args})`,
      [],
    );
    await connection.query('DEALLOCATE bench_plan', []);
    return plan.rows.map((row) => row['QUERY PLAN']!);
  } finally {
    await knex.client.releaseConnection(connection);
  }
}

try {
  const db = await openDatabase({ url: url.toString(), dataDir: '', poolSize: 1 });
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
  console.log(
    `seeded ${EVENTS} events (${inWindow[0]?.n} listable) in ${Date.now() - seedStart} ms, database ${name}`,
  );
  if (TEC) {
    await compareWithTec({ knex: db.knex, databaseUrl: url.toString(), pgCpuMs: backendCpuMs, tec: TEC });
    await db.close();
  } else await restOfBench(db, sample.id);
} finally {
  if (child) {
    child.send('stop');
    await new Promise((resolve) => child!.once('exit', resolve));
  }
  await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminDb.close();
}

/** The plans, the schedule import and the autocannon runs. */
async function restOfBench(db: Awaited<ReturnType<typeof openDatabase>>, sampleId: number) {
  const base = { bounds: dateBounds({ strict_dates: false }, 'UTC'), statuses: ['publish'] };
  const planned: [string, Parameters<typeof eventListSql>[0], number][] = [
    ['default list, per_page=50', base, 50],
    ['categories=music', { ...base, categories: ['music'] }, 10],
    ['search=jazz', { ...base, search: 'jazz' }, 10],
  ];
  for (const [label, filter, limit] of planned) {
    console.log(`\nplan of the ${label} statement:\n${(await explain(db.knex, filter, limit)).join('\n')}`);
  }
  await benchImport(db.knex);
  await db.close();
  // `pnpm bench calendar --import-only`: the schedule import without the autocannon runs.
  if (!process.argv.includes('--import-only')) await loadRuns(sampleId);
}

async function loadRuns(sampleId: number) {
  const pages = Array.from({ length: 40 }, (_, i) => `${ROOT}/events?per_page=50&page=${i + 1}`);
  const cases: [string, string, string[]?][] = [
    ['GET /events (default window, per_page=50)', `${ROOT}/events?per_page=50`],
    ['GET /events?per_page=50&page=1..40 in turn', pages[0]!, pages],
    ['GET /events?categories=music', `${ROOT}/events?categories=music`],
    ['GET /events?search=jazz', `${ROOT}/events?search=jazz`],
    ['GET /events/{id}', `${ROOT}/events/${sampleId}`],
  ];
  // Uncached: GET cache off. Cold: also no list memo, so every list counts its matches and every
  // event of every page is built, rendered and serialized again. Cached: the GET cache with its
  // default TTL.
  const modes = [
    { mode: 'uncached', ttl: 0, reuse: true },
    { mode: 'cold', ttl: 0, reuse: false },
    { mode: 'cached', ttl: 1000, reuse: true },
  ] as const;
  const results = new Map<string, Partial<Record<(typeof modes)[number]['mode'], Measured>>>();
  for (const { mode, ttl, reuse } of modes) {
    child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), {
      execArgv: FROM_SOURCE,
      env: {
        ...process.env,
        DATABASE_URL: url.toString(),
        LOG_LEVEL: 'silent',
        CALENDAR_CACHE_TTL_MS: String(ttl),
        CALENDAR_BENCH_REUSE: reuse ? '1' : '0',
      },
    });
    const { port } = await ask<{ port: number }>(child, '', 'port');
    const origin = `http://127.0.0.1:${port}`;
    for (const [label, path, paths] of cases) {
      if (mode === 'cold' && !path.includes('/events?')) continue; // reuse is for lists only
      const check = await fetch(`${origin}${path}`);
      const body = (await check.json()) as { total?: number };
      if (check.status !== 200) throw new Error(`${label}: HTTP ${check.status}`);
      if (mode === 'uncached') console.log(`${label}: ${body.total ?? 1} matching`);
      await load(`${origin}${path}`, 2, paths); // warm-up
      await ask(child, 'reset', 'reset');
      const pgBefore = await backendCpuMs();
      const run = await load(`${origin}${path}`, SECONDS, paths);
      const pgMs = (await backendCpuMs()) - pgBefore;
      const { queries, cpuMs } = await ask<{ queries: number; cpuMs: number }>(child, 'read', 'queries');
      results.set(label, {
        ...results.get(label),
        [mode]: {
          rps: run.result.requests.average,
          p50: run.p50,
          p95: run.p95,
          p99: run.p99,
          statements: queries / run.count,
          appCpuMs: cpuMs / run.count,
          pgCpuMs: pgMs / run.count,
          non2xx: run.result.non2xx,
        },
      });
    }
    child.send('stop');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = undefined;
  }

  console.log(
    `\n${EVENTS} events, ${CONNECTIONS} connections, ${SECONDS} s per case after a 2 s warm-up. ` +
      'Uncached: GET cache off, every request queries PostgreSQL. Cold: GET cache off and no reuse ' +
      'of rendered list events. Cached: TTL 1000 ms (the default). CPU ms/req: the app process and ' +
      'the PostgreSQL backends of the bench database, per request.\n',
  );
  console.log(
    '| request | uncached req/s | p50 ms | p95 ms | p99 ms | SQL statements/req | app CPU ms/req | PostgreSQL CPU ms/req ' +
      '| cold req/s | p95 ms | app CPU ms/req | cached req/s | p50 ms | p95 ms | p99 ms | non-2xx |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  const ms = (n: number | undefined) => (n === undefined ? '' : n.toFixed(1));
  const rate = (m: Measured | undefined) => (m ? m.rps.toFixed(0) : '=');
  for (const [label, { uncached: off, cold, cached: on }] of results) {
    if (!off || !on) continue;
    console.log(
      `| ${label} | ${rate(off)} | ${ms(off.p50)} | ${ms(off.p95)} | ${ms(off.p99)} | ${off.statements.toFixed(2)} | ` +
        `${off.appCpuMs.toFixed(2)} | ${off.pgCpuMs.toFixed(2)} | ${rate(cold)} | ${ms(cold?.p95)} | ` +
        `${cold ? cold.appCpuMs.toFixed(2) : ''} | ${rate(on)} | ${ms(on.p50)} | ${ms(on.p95)} | ${ms(on.p99)} | ` +
        `${off.non2xx + on.non2xx + (cold?.non2xx ?? 0)} |`,
    );
  }
}
