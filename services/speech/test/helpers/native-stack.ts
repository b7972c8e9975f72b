/**
 * The stack of the POST /transcribe tests: a gateway on the in-process engine (synthetic tiny
 * model), an English-only engine beside it, started once per test file and closed after it.
 */
import { afterAll, beforeAll } from '@jest/globals';
import request from 'supertest';
import { type Backend, inProcessBackend, type RunningGateway, startGateway } from './gateway.js';
import { pcmBody, sine } from './wav.js';

export const LOCAL = { 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' };
export const oneSecond = pcmBody(sine(16000, 1, 440, 0.3));
export const threeSeconds = pcmBody(sine(16000, 3, 440, 0.3));

export interface NativeStack {
  backend: Backend;
  englishOnly: Backend;
  gateway: RunningGateway;
}

/** Starts the stack before the file's tests and hands it to `use`; closes it after them. */
export function useNativeStack(use: (stack: NativeStack) => void): void {
  let stack: NativeStack | undefined;
  beforeAll(async () => {
    const backend = await inProcessBackend('tiny');
    const englishOnly = await inProcessBackend('tiny.en');
    stack = { backend, englishOnly, gateway: await startGateway({ queue: backend.queue }) };
    use(stack);
  });
  afterAll(async () => {
    await stack?.gateway.close();
    await stack?.backend.close();
    await stack?.englishOnly.close();
  });
}

/** `POST /transcribe{query}` on `gateway` with `headers` (a local caller's by default). */
export const transcribeOn = (gateway: RunningGateway, query = '', headers: Record<string, string> = LOCAL) =>
  request(gateway.base).post(`/transcribe${query}`).set(headers);
