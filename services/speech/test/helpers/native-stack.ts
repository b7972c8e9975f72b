/**
 * The stack of the POST /transcribe tests: a gateway on the in-process engine (synthetic tiny
 * model), an English-only engine beside it, started once per test file and closed after it.
 */
import { afterAll, beforeAll } from '@jest/globals';
import request from 'supertest';
import {
  type Backend,
  type GatedQueue,
  inProcessBackend,
  type RunningGateway,
  startGateway,
} from './gateway.js';
import { pcmBody, sine } from './wav.js';

export const LOCAL = { 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' };
export const oneSecond = pcmBody(sine(16000, 1, 440, 0.3));
export const threeSeconds = pcmBody(sine(16000, 3, 440, 0.3));

export interface NativeStack {
  backend: Backend;
  englishOnly: Backend;
  gateway: RunningGateway;
}

/**
 * Starts the stack before the file's tests and hands it to `use`; closes it after them. Returns
 * `transcribe(query, headers)`: {@link transcribeOn} the stack's gateway.
 */
export function useNativeStack(use: (stack: NativeStack) => void) {
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
  return (query = '', headers: Record<string, string> = LOCAL) => {
    if (!stack) throw new Error('the native stack starts in beforeAll');
    return transcribeOn(stack.gateway.base, query, headers);
  };
}

/** A gateway on the in-process tiny engine alone, handed to `use` before the tests; closed after them. */
export function useInProcessGateway(use: (gateway: RunningGateway) => void): void {
  let backend: Backend | undefined;
  let gateway: RunningGateway | undefined;
  beforeAll(async () => {
    backend = await inProcessBackend();
    gateway = await startGateway({ queue: backend.queue });
    use(gateway);
  });
  afterAll(async () => {
    await gateway?.close();
    await backend?.close();
  });
}

/** `POST /transcribe{query}` on the gateway at `base` with `headers` (a local caller's by default). */
export const transcribeOn = (base: string, query = '', headers: Record<string, string> = LOCAL) =>
  request(base).post(`/transcribe${query}`).set(headers);

/**
 * Holds `gated` and posts `body` to /transcribe on `base`; resolves once the job waits at the
 * gate, its `response` still to come (after `gated.open()`, or a deadline).
 */
export async function queuedTranscribe(
  gated: GatedQueue,
  base: string,
  body: Buffer,
  headers: Record<string, string> = LOCAL,
): Promise<{ response: Promise<request.Response> }> {
  gated.hold();
  const response = transcribeOn(base, '', headers)
    .send(body)
    .then((res) => res);
  await gated.waitForSubmissions(1);
  return { response };
}
