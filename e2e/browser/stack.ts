/**
 * The stack a browser suite runs against, started from the sources in a temp folder: the speech
 * gateway (synthetic model), the relay (generated config) and the UI service, plus the capture
 * proxy (capture-proxy.ts), the capture host the browser sees.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newToken } from '@live-captions/secret-files';
import { audioFixture, sileroModel } from '@live-captions/test-services/fixtures';
import { freePort, startService, until } from '../deploy/helpers/processes.js';
import { CaptureProxy } from './capture-proxy.js';
import { processLogs, startRelayUi } from './relay-ui.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MODEL = join(ROOT, 'models/ggml-synthetic-tiny.bin');
/** A clip with quiet at both ends: looped by chromium's fake microphone it pauses once per loop. */
export const CLIP = audioFixture('en-picovoice-test.wav');

export interface Stack {
  dir: string;
  apiKey: string;
  rooms: { source: string; output: string };
  tokens: { sourceRead: string; sourceWrite: string; outputRead: string; outputWrite: string };
  captureUrl: string;
  uiUrl: string;
  relayUrl: string;
  proxy: CaptureProxy;
  /** Stops the relay and starts it again after `downMs` (an outage that long). */
  restartRelay(downMs?: number): Promise<void>;
  /** SIGSTOP freezes the relay (its sockets stay open, nothing answers), SIGCONT thaws it. */
  signalRelay(signal: NodeJS.Signals): void;
  /**
   * Stops the speech gateway (the capture proxy then answers 502), and starts it again, with
   * `env` over its usual environment (until the next start).
   */
  stopGateway(): Promise<void>;
  startGateway(env?: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
  logs(): string;
}

/** Starts gateway, relay, ui and the capture proxy on free ports. */
export async function startStack(captureDir: string): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-stack-'));
  const [gatewayPort, capturePort] = [await freePort(), await freePort()];
  const captureOrigin = `http://127.0.0.1:${capturePort}`;
  const rooms = { source: 'e2e-source', output: 'e2e-output' };
  const apiKey = newToken();
  const servers = await startRelayUi({
    dir,
    rooms,
    origins: [captureOrigin],
    // No outputs service in this stack: the editor's destinations panel stays hidden.
    uiEnv: { CAPTURE_URL: `${captureOrigin}/`, OUTPUTS_URL: '' },
  });

  const gatewayEnv = {
    LOG_LEVEL: 'warn',
    CAPTION_BIND: '127.0.0.1',
    CAPTION_PORT: String(gatewayPort),
    CAPTION_MODEL: MODEL,
    CAPTION_OFFLINE: '1',
    CAPTION_THREADS: '1',
    CAPTION_API_KEY: apiKey,
    CAPTION_ALLOWED_ORIGINS: servers.uiOrigin,
    CAPTION_LOCAL_ENV_FILE: join(dir, 'caption-local.env'),
    CAPTION_RELAY_TOKENS_FILE: join(dir, 'relay-tokens.env'),
    // The realtime transport's server VAD: the Silero test model (offline, never downloaded).
    CAPTION_REALTIME_VAD_MODEL: sileroModel(),
  };
  let gateway = startService('speech', gatewayEnv);
  const proxy = new CaptureProxy(capturePort, gatewayPort);
  const logs = () => processLogs([gateway, ...servers.processes()]);

  const auth = { headers: { Authorization: `Bearer ${apiKey}` } };
  const gatewayReady = () =>
    until(
      'the gateway',
      async () => (await fetch(`http://127.0.0.1:${gatewayPort}/health`, auth)).ok,
      60_000,
    );
  try {
    await gatewayReady();
    await servers.ready();
    await proxy.start(captureDir);
  } catch (error) {
    await Promise.all([gateway.stop(), servers.stop()]);
    throw new Error(`${(error as Error).message}\n${logs()}`);
  }

  return {
    dir,
    apiKey,
    rooms,
    tokens: servers.tokens,
    captureUrl: `${captureOrigin}/`,
    uiUrl: `${servers.uiOrigin}/`,
    relayUrl: servers.relayUrl,
    proxy,
    logs,
    restartRelay: (downMs) => servers.restartRelay(downMs),
    signalRelay: (signal) => servers.signalRelay(signal),
    async stopGateway() {
      await gateway.stop();
    },
    async startGateway(env = {}) {
      gateway = startService('speech', { ...gatewayEnv, ...env });
      await gatewayReady();
    },
    async stop() {
      await proxy.stop();
      await Promise.all([gateway.stop(), servers.stop()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
