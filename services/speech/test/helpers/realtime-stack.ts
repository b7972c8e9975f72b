/**
 * The stack of the /v1/realtime tests through the official SDK: a gateway with the service token
 * and the real Silero VAD on the in-process engine (synthetic tiny model), behind a TLS
 * terminator (the SDK only dials wss:); started once per test file and closed after it.
 */
import { afterAll, beforeAll } from '@jest/globals';
import { sileroModel } from '@live-captions/test-services/fixtures';
import { sileroVad } from '../../src/adapters/vad.js';
import {
  API_KEY,
  type Backend,
  inProcessBackend,
  type RunningGateway,
  startGateway,
  testConfig,
} from './gateway.js';
import { openSession, type Session, startTlsTerminator, type TlsTerminator } from './realtime.js';

export interface RealtimeStack {
  backend: Backend;
  gateway: RunningGateway;
  tls: TlsTerminator;
  /** A new session of the SDK's client, with the service token. */
  open(): Promise<Session>;
}

/** Starts the stack before the file's tests and hands it to `use`; closes it after them. */
export function useRealtimeStack(use: (stack: RealtimeStack) => void): void {
  // Each part on its own: whatever started is closed, even if a later part failed to start.
  let backend: Backend | undefined;
  let gateway: RunningGateway | undefined;
  let tls: TlsTerminator | undefined;
  beforeAll(async () => {
    backend = await inProcessBackend('tiny');
    gateway = await startGateway({
      queue: backend.queue,
      config: testConfig({ apiKey: API_KEY }),
      vad: sileroVad(Promise.resolve(sileroModel())),
    });
    const terminator = await startTlsTerminator(gateway.port);
    tls = terminator;
    use({ backend, gateway, tls, open: () => openSession(terminator, API_KEY) });
  });
  afterAll(async () => {
    await tls?.close();
    await gateway?.close();
    await backend?.close();
  });
}
