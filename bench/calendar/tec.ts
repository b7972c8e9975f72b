// `pnpm bench calendar --tec` (issue 44 point 7): ours against the real The Events Calendar
// 6.17.2, both uncached (ours with its GET cache off; TEC has none) and holding the same events
// (tec-seed.ts). One sequential client, 10 events a page: a visitor's request rate, where the
// issue's target (ours >= 80x TEC) was set, not a server's throughput under load. The two sides
// alternate in short slices, round after round, so that the load of a shared machine falls on
// both. Prints rates, latencies and, where the servers run here, their CPU per request. Never
// fails on timings.
import { fork } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { FROM_SOURCE } from '@live-captions/test-services';
import { ask } from './ipc.js';
import { seedTec, type Tec } from './tec-seed.js';

type Knex = Parameters<typeof seedTec>[0];

const ROUNDS = Number(process.env.CALENDAR_BENCH_TEC_ROUNDS ?? 5);
const SLICE_MS = Number(process.env.CALENDAR_BENCH_TEC_SLICE_S ?? 3) * 1000;
const WARM_MS = 3000;
const OURS = '/wp-json/cal/events/v1';

interface Side {
  name: 'TEC' | 'ours';
  root: string;
  /** Cumulative CPU ms of [server, database], or undefined where they do not run here. */
  cpu(): Promise<[number, number] | undefined>;
}
interface Tally {
  latencies: number[];
  ms: number;
  cpu: [number, number] | undefined;
  failed: number;
}

// One socket, kept alive where the server allows it (php -S closes it after each answer).
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function get(url: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** utime + stime (ms) of the processes `match` selects, from /proc (10 ms clock ticks). */
function procCpuMs(match: (pid: number, pgrp: number) => boolean): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (match(Number(entry), Number(fields[2]))) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks * 10;
}

/** TEC's CPU: php -S and its workers (one process group, its pid file) and its MariaDB. */
function tecCpu(dir: string | undefined): Side['cpu'] {
  if (!dir) return async () => undefined;
  const php = Number(readFileSync(join(dir, 'php-server.pid'), 'utf8'));
  const db = Number(readFileSync(join(dir, 'mysql', 'mysqld.pid'), 'utf8'));
  return async () => [procCpuMs((_, pgrp) => pgrp === php), procCpuMs((pid) => pid === db)];
}

/** Requests `path` one after the other for `ms`; adds to `tally`. */
async function slice(side: Side, path: string, ms: number, tally?: Tally): Promise<void> {
  const before = await side.cpu();
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    const sent = performance.now();
    const { status } = await get(`${side.root}/${path}`);
    now = performance.now();
    if (!tally) continue;
    tally.latencies.push(now - sent);
    if (status !== 200) tally.failed++;
  }
  if (!tally) return;
  tally.ms += now - start;
  const after = await side.cpu();
  if (before && after) {
    const [server, db] = tally.cpu ?? [0, 0];
    tally.cpu = [server + after[0] - before[0], db + after[1] - before[1]];
  }
}

async function total(side: Side, path: string): Promise<string> {
  const { status, body } = await get(`${side.root}/${path}`);
  if (status !== 200)
    throw new Error(`${side.name} ${path}: HTTP ${status} ${body.toString().slice(0, 200)}`);
  const json = JSON.parse(body.toString()) as { total?: number; title?: string };
  return json.total === undefined ? `"${json.title}"` : `${json.total} matching`;
}

export async function compareWithTec(options: {
  knex: Knex;
  databaseUrl: string;
  /** Cumulative CPU ms of the PostgreSQL backends of our database. */
  pgCpuMs: () => Promise<number>;
  tec: Tec;
}): Promise<void> {
  const { knex, tec } = options;
  const ids = await seedTec(knex, tec);
  const sample = (await knex('cal_events')
    .where({ status: 'publish', password: '', hide_from_listings: false })
    .orderBy('id')
    .first('id')) as { id: number };
  const workers = tec.dir
    ? (/^TEC_PHP_WORKERS=(\d+)$/m.exec(readFileSync(join(tec.dir, 'tec.env'), 'utf8'))?.[1] ?? '4')
    : 'unknown';
  const child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), {
    execArgv: FROM_SOURCE,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: 'silent',
      CALENDAR_CACHE_TTL_MS: '0', // uncached, as TEC
      CALENDAR_BENCH_REUSE: '1',
    },
  });
  try {
    const { port } = await ask<{ port: number }>(child, '', 'port');
    await ask(child, 'reset', 'reset');
    const sides: Side[] = [
      { name: 'TEC', root: tec.root, cpu: tecCpu(tec.dir) },
      {
        name: 'ours',
        root: `http://127.0.0.1:${port}${OURS}`,
        cpu: async () => {
          const { cpuMs } = await ask<{ cpuMs: number }>(child, 'read', 'cpuMs');
          return [cpuMs, await options.pgCpuMs()];
        },
      },
    ];
    const cases: [string, string, string][] = [
      ['GET /events?per_page=10', 'events?per_page=10', 'events?per_page=10'],
      ['GET /events?per_page=10&categories=music', 'events?per_page=10&categories=music', ''],
      ['GET /events?per_page=10&search=jazz', 'events?per_page=10&search=jazz', ''],
      ['GET /events/{id}', `events/${ids.get(sample.id)}`, `events/${sample.id}`],
    ];
    const rows: string[] = [];
    for (const [label, tecPath, ourPath] of cases) {
      const paths = [tecPath, ourPath || tecPath];
      const [theirs, ours] = [await total(sides[0]!, paths[0]!), await total(sides[1]!, paths[1]!)];
      console.log(`${label}: TEC ${theirs}, ours ${ours}${theirs === ours ? '' : ' (NOT the same data)'}`);
      // Warm-up: V8 needs a few thousand requests before ours runs at its steady cost (1.0 against
      // 1.9 ms of CPU per request after 300); a production server is past that.
      for (const [i, side] of sides.entries()) await slice(side, paths[i]!, WARM_MS);
      const tallies = sides.map((): Tally => ({ latencies: [], ms: 0, cpu: undefined, failed: 0 }));
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate who goes first: neither side always follows the other's cache and JIT effects.
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const i of order) await slice(sides[i]!, paths[i]!, SLICE_MS, tallies[i]);
      }
      rows.push(row(label, tallies[0]!, tallies[1]!));
    }
    console.log(
      `\nOne sequential client, 10 events a page, ${ROUNDS} rounds of ${SLICE_MS / 1000} s per side ` +
        `(alternating) after a ${WARM_MS / 1000} s warm-up each. TEC: ${tec.root} (PHP_CLI_SERVER_WORKERS=${workers}); ` +
        'ours: GET cache off (uncached). CPU ms/req: TEC php -S + MariaDB, ours app + PostgreSQL ' +
        '(empty where the server does not run here).\n',
    );
    console.log(
      '| request | TEC req/s | p50 ms | p95 ms | CPU ms/req | ours req/s | p50 ms | p95 ms | CPU ms/req ' +
        '| ours/TEC req/s | TEC/ours CPU | non-200 |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const line of rows) console.log(line);
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
    agent.destroy();
  }
}

function row(label: string, theirs: Tally, ours: Tally): string {
  const rate = (t: Tally) => (t.latencies.length * 1000) / t.ms;
  const at = (t: Tally, p: number) => {
    const sorted = [...t.latencies].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  };
  const perReq = (t: Tally) => (t.cpu ? (t.cpu[0] + t.cpu[1]) / t.latencies.length : undefined);
  const cpu = (t: Tally) =>
    t.cpu
      ? `${perReq(t)!.toFixed(2)} (${(t.cpu[0] / t.latencies.length).toFixed(2)} + ${(t.cpu[1] / t.latencies.length).toFixed(2)})`
      : '';
  const side = (t: Tally) =>
    `${rate(t).toFixed(1)} | ${at(t, 50).toFixed(2)} | ${at(t, 95).toFixed(2)} | ${cpu(t)}`;
  const cpuRatio = perReq(theirs) && perReq(ours) ? `${(perReq(theirs)! / perReq(ours)!).toFixed(0)}x` : '';
  return (
    `| ${label} | ${side(theirs)} | ${side(ours)} | ${(rate(ours) / rate(theirs)).toFixed(1)}x | ${cpuRatio} ` +
    `| ${theirs.failed + ours.failed} |`
  );
}
