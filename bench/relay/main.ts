// `pnpm bench relay [--duration=SECONDS] [--readers=100,400]`: 32 publishers x 5 captions/s into
// one room, read by 100 and then 400 readers on loopback, through one relay, through two relays on
// Redis (cluster mode, stream and pub/sub fan-out; publishers and readers split across the two
// nodes) and through a bare `ws` broadcast of the same load, in the same run. Prints delivery
// latency, deliveries/s, gaps, loss, peak RSS and CPU per node, and Redis's CPU per delivery.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  arg,
  collect,
  drain,
  joinAsWriter,
  openSocket,
  pause,
  quantile,
  type Socket,
  writeRelayConfig,
} from './clients.js';
import { cpuSeconds, KINDS, type Kind, rssMiB, type Server, startServer, stopServer } from './servers.js';

// `--scenario=audience` runs only the audience case (audience.ts), `retention` only the history's
// memory per room (retention.ts); `fanout` only the cases below;
// by default both, the fan-out cases first.
const SCENARIO = process.argv.find((a) => a.startsWith('--scenario='))?.split('=')[1] ?? 'all';
if (SCENARIO === 'audience') {
  await (await import('./audience.js')).audienceScenario();
  process.exit(0);
}
if (SCENARIO === 'retention') {
  await (await import('./retention.js')).retentionScenario();
  process.exit(0);
}

const DURATION_S = arg('duration', 60);
const PUBLISHERS = arg('publishers', 32);
const RATE = arg('rate', 5);
const READER_COUNTS = (process.argv.find((a) => a.startsWith('--readers='))?.split('=')[1] ?? '100,400')
  .split(',')
  .map(Number);
const THREADS = arg('threads', Math.max(1, Math.min(8, availableParallelism() - 2)));
const TEXT = 'The quick brown fox jumps over the lazy dog while the captions keep flowing steadily.';
const ROOM = 'bench';
const READ = 'benchRead_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const WRITE = 'benchWrite_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

interface Result {
  kind: string;
  readers: number;
  published: number;
  delivered: number;
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
  gaps: number;
  lost: number;
  /** Peak RSS, summed over the nodes. */
  rss: number;
  /** CPU seconds per node. */
  cpu: number[];
  /** CPU seconds of redis-server (cluster). */
  redisCpu?: number;
}

async function run(server: Server, readerCount: number): Promise<Result> {
  // Readers live in worker threads so that the client side is not the bottleneck.
  const joinFrame = JSON.stringify({ protocol: 2, join: ROOM, role: 'read', token: READ });
  const urls = server.nodes.map((node) => node.url);
  const workers: Worker[] = [];
  let first = 0;
  for (let i = 0; i < THREADS; i++) {
    const count = Math.floor(readerCount / THREADS) + (i < readerCount % THREADS ? 1 : 0);
    const worker = new Worker(new URL('./readers.mjs', import.meta.url), {
      workerData: { urls, first, count, kind: server.kind, join: joinFrame },
    });
    first += count;
    await new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve());
      worker.once('error', reject);
    });
    // A reader thread that dies would leave the run waiting for its counts forever.
    worker.on('error', (error) => {
      console.error(`reader thread failed: ${error.message}`);
      process.exit(1);
    });
    workers.push(worker);
  }
  const publishers: Socket[] = [];
  for (let i = 0; i < PUBLISHERS; i++) {
    // Publishers split across the nodes too.
    const ws = await openSocket(urls[i % urls.length]!);
    await joinAsWriter(ws, server.kind, ROOM, WRITE);
    publishers.push(ws);
  }

  let published = 0;
  const pids = server.nodes.map((node) => node.child.pid!);
  const totalRss = () => pids.reduce((sum, pid) => sum + rssMiB(pid), 0);
  let peakRss = totalRss();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, totalRss());
  }, 1000);
  const timers: NodeJS.Timeout[] = [];
  const period = 1000 / RATE;
  const started = performance.now();
  const cpuBefore = pids.map(cpuSeconds);
  const redisBefore = server.redisPid ? cpuSeconds(server.redisPid) : 0;
  await new Promise<void>((resolve) => {
    publishers.forEach((ws, index) => {
      const client = `bench_publisher_${String(index).padStart(4, '0')}`;
      let sequence = 0;
      const tick = () => {
        sequence += 1;
        published += 1;
        // The id carries the send time (ms since the epoch, sub-ms precision) for the latency.
        const id = String(performance.timeOrigin + performance.now());
        ws.send(JSON.stringify({ msg: true, final: TEXT, id, delivery: { client, sequence } }));
      };
      timers.push(setTimeout(() => timers.push(setInterval(tick, period)), (index * period) / PUBLISHERS));
    });
    setTimeout(resolve, DURATION_S * 1000);
  });
  for (const timer of timers) clearInterval(timer);
  const elapsed = (performance.now() - started) / 1000;
  // Let the last captions arrive.
  const expected = published * readerCount;
  await drain(workers, expected);
  clearInterval(sampler);
  const cpu = pids.map((pid, i) => cpuSeconds(pid) - cpuBefore[i]!);
  const redisCpu = server.redisPid ? cpuSeconds(server.redisPid) - redisBefore : undefined;
  peakRss = Math.max(peakRss, totalRss());
  const { sorted, delivered, gaps, closed } = await collect(workers);
  for (const ws of publishers) ws.terminate();
  await Promise.all(workers.map((w) => w.terminate()));
  await pause(500);
  if (closed > 0) console.log(`${server.kind}: ${closed} reader sockets were closed by the server`);
  return {
    kind: server.kind,
    readers: readerCount,
    published,
    delivered,
    perSecond: delivered / elapsed,
    p50: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    gaps,
    lost: expected - delivered,
    rss: peakRss,
    cpu,
    ...(redisCpu === undefined ? {} : { redisCpu }),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'bench-relay-'));
// One room holds every socket of the run and all of them come from 127.0.0.1.
const configPath = writeRelayConfig(
  dir,
  { name: ROOM, read: READ, write: WRITE },
  { connections: 2048, perIp: 2048, perRoom: 2048 },
);

console.log(
  `${PUBLISHERS} publishers x ${RATE} captions/s into one room, ${DURATION_S} s per run, loopback, Node ${process.version}`,
);
console.log(
  `readers in ${THREADS} worker threads; relay limits raised for the run: connections, perIp, perRoom = 2048 (all sockets from 127.0.0.1 in one room)\n`,
);
const results: Result[] = [];
try {
  for (const readers of READER_COUNTS) {
    for (const kind of KINDS) {
      const server = await startServer(kind, configPath);
      try {
        results.push(await run(server, readers));
      } finally {
        await stopServer(server);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const f = (n: number, digits = 2) => n.toFixed(digits);
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const perDelivery = (seconds: number, r: Result) => (seconds * 1e6) / Math.max(1, r.delivered);
console.log(
  '| server | readers | published | deliveries | deliveries/s | p50 ms | p95 ms | p99 ms | gaps | lost | peak RSS MiB (all nodes) | CPU s per node | redis CPU s | CPU µs/delivery (nodes + redis) |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of results) {
  const total = sum(r.cpu) + (r.redisCpu ?? 0);
  console.log(
    `| ${r.kind} | ${r.readers} | ${r.published} | ${r.delivered} | ${f(r.perSecond, 0)} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.p99)} | ${r.kind === 'bare' ? '-' : r.gaps} | ${r.lost} | ${f(r.rss, 1)} | ${r.cpu.map((c) => f(c)).join(' + ')} | ${r.redisCpu === undefined ? '-' : f(r.redisCpu)} | ${f(perDelivery(total, r), 1)} |`,
  );
}
for (const readers of READER_COUNTS) {
  const find = (kind: Kind) => results.find((r) => r.kind === kind && r.readers === readers)!;
  const bare = find('bare');
  const single = find('relay');
  console.log(`\n${readers} readers, against a bare ws broadcast (same load, same run):`);
  for (const kind of KINDS.filter((k) => k !== 'bare')) {
    const r = find(kind);
    console.log(
      `  ${kind}: p50 x${f(r.p50 / bare.p50)}, p95 x${f(r.p95 / bare.p95)}, p99 x${f(r.p99 / bare.p99)}, deliveries/s x${f(r.perSecond / bare.perSecond)}, server CPU x${f(sum(r.cpu) / sum(bare.cpu))}`,
    );
  }
  for (const kind of ['cluster-stream', 'cluster-pubsub'] as const) {
    const r = find(kind);
    const extra = sum(r.cpu) + (r.redisCpu ?? 0) - sum(single.cpu);
    console.log(
      `  Redis overhead (${kind} vs one relay): ${f(perDelivery(extra, r), 2)} µs CPU per delivery (nodes + redis-server), of which redis-server ${f(perDelivery(r.redisCpu ?? 0, r), 2)} µs; p95 ${r.p95 >= single.p95 ? '+' : ''}${f(r.p95 - single.p95)} ms`,
    );
  }
}
const at400 = results.filter((r) => r.readers === Math.max(...READER_COUNTS) && r.kind !== 'bare');
for (const r of at400) {
  console.log(
    `\n${r.kind}, ${r.readers} readers: p95 <= 5 ms: ${r.p95 <= 5 ? 'met' : 'NOT met'} (${f(r.p95)} ms); zero gaps: ${r.gaps === 0 ? 'met' : 'NOT met'}; zero loss: ${r.lost === 0 ? 'met' : 'NOT met'}`,
  );
}
if (SCENARIO === 'all') {
  console.log('');
  await (await import('./audience.js')).audienceScenario();
}
