// `pnpm bench relay --scenario=audience`: one writer at 3 captions/s into one room read by 5,000
// readers (an audience on a venue's Wi-Fi: every reader from 127.0.0.1), through one relay with
// its DEFAULT limits and through a bare `ws` broadcast, in the same run. Prints p50/p95/p99
// delivery latency, lost captions, the relay's memory with the readers joined and idle (and per
// reader) and at its peak, and the ratios to the bare broadcast. The relay's readers ask for
// beats as the pages do (`"beat": true`): the server's CPU over --idle seconds with every reader
// joined and the room silent is what beats cost (the bare broadcast sends nothing then).
// Flags: --readers=5000 --rate=3 --duration=60 --idle=10 --threads=N.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  arg,
  beatsReceived,
  collect,
  drain,
  joinAsWriter,
  openSocket,
  pause,
  quantile,
  type Socket,
  writeRelayConfig,
} from './clients.js';
import { cpuSeconds, type Kind, rssMiB, type Server, startServer, stopServer } from './servers.js';

const READERS = arg('readers', 5000);
const RATE = arg('rate', 3);
const DURATION_S = arg('duration', 60);
const IDLE_S = arg('idle', 10);
const THREADS = arg('threads', Math.max(1, Math.min(8, availableParallelism() - 2)));
const TEXT = 'And that is why the river changes its course every few hundred years, slowly.';
const ROOM = 'audience';
const READ = 'audienceRead_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const WRITE = 'audienceWrite_bbbbbbbbbbbbbbbbbbbbbbbbbbbbb';

interface Result {
  kind: Kind;
  published: number;
  delivered: number;
  p50: number;
  p95: number;
  p99: number;
  gaps: number;
  lost: number;
  baseRss: number;
  idleRss: number;
  peakRss: number;
  joinSeconds: number;
  /** Server CPU seconds while captions flowed (publishing and draining). */
  cpu: number;
  /** Server CPU seconds over IDLE_S with every reader joined and nothing published. */
  idleCpu: number;
  /** Beat frames the readers got over IDLE_S. */
  idleBeats: number;
}

/** The writer: from 127.0.0.2, so that the readers alone fill 127.0.0.1's share (`perIp`). */
async function openWriter(server: Server): Promise<Socket> {
  const ws = await openSocket(server.nodes[0]!.url, '127.0.0.2');
  await joinAsWriter(ws, server.kind, ROOM, WRITE);
  return ws;
}

async function run(server: Server): Promise<Result> {
  const pid = server.nodes[0]!.child.pid!;
  await pause(1000);
  const baseRss = rssMiB(pid);
  const joinFrame = JSON.stringify({ protocol: 2, join: ROOM, role: 'read', token: READ, beat: true });
  const started = performance.now();
  const workers: Worker[] = [];
  for (let i = 0; i < THREADS; i++) {
    const count = Math.floor(READERS / THREADS) + (i < READERS % THREADS ? 1 : 0);
    const worker = new Worker(new URL('./readers.mjs', import.meta.url), {
      workerData: { urls: [server.nodes[0]!.url], first: 0, count, kind: server.kind, join: joinFrame },
    });
    worker.on('error', (error) => {
      console.error(`reader thread failed: ${error.message}`);
      process.exit(1);
    });
    workers.push(worker);
  }
  // Threads open their readers at once, as an audience arrives.
  await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
  const joinSeconds = (performance.now() - started) / 1000;
  await pause(3000);
  const idleRss = rssMiB(pid);
  const idleCpuBefore = cpuSeconds(pid);
  const beatsBefore = await beatsReceived(workers);
  await pause(IDLE_S * 1000);
  const idleCpu = cpuSeconds(pid) - idleCpuBefore;
  const idleBeats = (await beatsReceived(workers)) - beatsBefore;

  const writer = await openWriter(server);
  let peakRss = idleRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMiB(pid));
  }, 500);
  let published = 0;
  const cpuBefore = cpuSeconds(pid);
  const tick = setInterval(() => {
    published += 1;
    const id = String(performance.timeOrigin + performance.now());
    writer.send(
      JSON.stringify({
        msg: true,
        final: TEXT,
        id,
        delivery: { client: 'audience_writer_0001', sequence: published },
      }),
    );
  }, 1000 / RATE);
  await pause(DURATION_S * 1000);
  clearInterval(tick);
  const expected = published * READERS;
  await drain(workers, expected);
  clearInterval(sampler);
  const cpu = cpuSeconds(pid) - cpuBefore;
  peakRss = Math.max(peakRss, rssMiB(pid));
  const { sorted, delivered, gaps, closed } = await collect(workers);
  writer.terminate();
  await Promise.all(workers.map((w) => w.terminate()));
  if (closed > 0) console.log(`${server.kind}: ${closed} reader sockets were closed by the server`);
  return {
    kind: server.kind,
    published,
    delivered,
    p50: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    gaps,
    lost: expected - delivered,
    baseRss,
    idleRss,
    peakRss,
    joinSeconds,
    cpu,
    idleCpu,
    idleBeats,
  };
}

export async function audienceScenario(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-audience-'));
  // No `limits`: the defaults must take an audience.
  const configPath = writeRelayConfig(dir, { name: ROOM, read: READ, write: WRITE });
  console.log(
    `audience: 1 writer x ${RATE} captions/s, ${READERS} readers of one room from 127.0.0.1, ${DURATION_S} s per run, ` +
      `relay with its default limits, readers in ${THREADS} worker thread(s), Node ${process.version}\n`,
  );
  const results: Result[] = [];
  try {
    for (const kind of ['relay', 'bare'] as const) {
      const server = await startServer(kind, configPath);
      try {
        results.push(await run(server));
      } finally {
        await stopServer(server);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const f = (n: number, digits = 2) => n.toFixed(digits);
  const perReader = (r: Result) => ((r.idleRss - r.baseRss) * 1024) / READERS;
  console.log(
    '| server | readers | published | deliveries | p50 ms | p95 ms | p99 ms | gaps | lost | all joined in s | RSS MiB: empty / readers idle / peak | KiB per idle reader | server CPU s | CPU µs/delivery |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.kind} | ${READERS} | ${r.published} | ${r.delivered} | ${f(r.p50)} | ${f(r.p95)} | ${f(r.p99)} | ${r.kind === 'bare' ? '-' : r.gaps} | ${r.lost} | ${f(r.joinSeconds, 1)} | ${f(r.baseRss, 1)} / ${f(r.idleRss, 1)} / ${f(r.peakRss, 1)} | ${f(perReader(r), 1)} | ${f(r.cpu)} | ${f((r.cpu * 1e6) / Math.max(1, r.delivered))} |`,
    );
  }
  const [relay, bare] = results as [Result, Result];
  console.log(
    `\nrelay / bare ws (same load, same run): p50 x${f(relay.p50 / bare.p50)}, p95 x${f(relay.p95 / bare.p95)}, p99 x${f(relay.p99 / bare.p99)}, peak RSS x${f(relay.peakRss / bare.peakRss)}, server CPU x${f(relay.cpu / bare.cpu)}`,
  );
  const idle = (r: Result) =>
    `${r.kind}: ${f(r.idleCpu)} CPU s over ${IDLE_S} s idle (${f((r.idleCpu / IDLE_S) * 100, 1)} % of a core), ${r.idleBeats} beats received (${f(r.idleBeats / IDLE_S / READERS, 2)} per reader per s)`;
  console.log(`\nidle, every reader joined, nothing published:\n  ${idle(relay)}\n  ${idle(bare)}`);
  if (relay.idleBeats > 0)
    console.log(
      `  beats cost the relay about ${f(((relay.idleCpu - bare.idleCpu) * 1e6) / relay.idleBeats)} µs each over the bare broadcast's idle CPU`,
    );
  console.log(
    `p95 within 1.1x of bare ws: ${relay.p95 <= 1.1 * bare.p95 ? 'met' : 'NOT met'}; nothing lost: ${relay.lost === 0 && relay.gaps === 0 ? 'met' : 'NOT met'}`,
  );
}
