/**
 * The stack a browser suite runs against, started from the sources in a temp folder: the speech
 * gateway (synthetic model), the relay (generated config) and the UI service, plus the capture
 * proxy (capture-proxy.ts), the capture host the browser sees.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newToken, type RelaySecrets, relayConfigText, relayTokensText } from '@live-captions/secret-files';
import { audioFixture, sileroModel } from '@live-captions/test-services/fixtures';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';
import { CaptureProxy } from './capture-proxy.js';

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
  restartRelay(): Promise<void>;
  /** Stops the speech gateway (the capture proxy then answers 502), and starts it again. */
  stopGateway(): Promise<void>;
  startGateway(): Promise<void>;
  stop(): Promise<void>;
  logs(): string;
}

/** Starts gateway, relay, ui and the capture proxy on free ports. */
export async function startStack(captureDir: string): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-stack-'));
  const [gatewayPort, capturePort, relayPort, uiPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const captureOrigin = `http://127.0.0.1:${capturePort}`;
  const uiOrigin = `http://127.0.0.1:${uiPort}`;
  const relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
  const rooms = { source: 'e2e-source', output: 'e2e-output' };
  const tokens = {
    sourceRead: newToken(),
    sourceWrite: newToken(),
    outputRead: newToken(),
    outputWrite: newToken(),
  };
  const apiKey = newToken();
  // The files `pnpm secrets:init` writes, from the same writers, for this stack's origins.
  const secrets: RelaySecrets = {
    origins: [captureOrigin, uiOrigin],
    sourceRoom: rooms.source,
    outputRoom: rooms.output,
    tokens,
    relayAddress: relayUrl,
    relaySite: `${uiOrigin}/`,
  };
  writeFileSync(join(dir, 'relay.private.json'), relayConfigText(secrets));
  writeFileSync(join(dir, 'relay-tokens.env'), relayTokensText(secrets));

  const gatewayEnv = {
    LOG_LEVEL: 'warn',
    CAPTION_BIND: '127.0.0.1',
    CAPTION_PORT: String(gatewayPort),
    CAPTION_MODEL: MODEL,
    CAPTION_OFFLINE: '1',
    CAPTION_THREADS: '1',
    CAPTION_API_KEY: apiKey,
    CAPTION_ALLOWED_ORIGINS: uiOrigin,
    CAPTION_LOCAL_ENV_FILE: join(dir, 'caption-local.env'),
    CAPTION_RELAY_TOKENS_FILE: join(dir, 'relay-tokens.env'),
    // The realtime transport's server VAD: the Silero test model (offline, never downloaded).
    CAPTION_REALTIME_VAD_MODEL: sileroModel(),
  };
  let gateway = startService('speech', gatewayEnv);
  const relayEnv = {
    LOG_LEVEL: 'warn',
    RELAY_BIND: '127.0.0.1',
    RELAY_PORT: String(relayPort),
    CAPTION_RELAY_CONFIG: join(dir, 'relay.private.json'),
  };
  let relay = startService('relay', relayEnv);
  const ui = startService('ui', {
    LOG_LEVEL: 'warn',
    UI_BIND: '127.0.0.1',
    UI_PORT: String(uiPort),
    RELAY_URL: relayUrl,
    CAPTURE_URL: `${captureOrigin}/`,
    // No outputs service in this stack: the editor's destinations panel stays hidden.
    OUTPUTS_URL: '',
  });
  const services = (): ServiceProcess[] => [gateway, relay, ui];
  const proxy = new CaptureProxy(capturePort, gatewayPort);
  const logs = () =>
    services()
      .map((service) => `--- ${service.name}\n${service.output()}`)
      .join('\n');
  const relayReady = () =>
    until('the relay', async () => (await fetch(`http://127.0.0.1:${relayPort}/health`)).ok, 30_000);

  const auth = { headers: { Authorization: `Bearer ${apiKey}` } };
  const gatewayReady = () =>
    until(
      'the gateway',
      async () => (await fetch(`http://127.0.0.1:${gatewayPort}/health`, auth)).ok,
      60_000,
    );
  try {
    await gatewayReady();
    await relayReady();
    await until('the ui', async () => (await fetch(`${uiOrigin}/health`)).ok, 30_000);
    await proxy.start(captureDir);
  } catch (error) {
    await Promise.all(services().map((service) => service.stop()));
    throw new Error(`${(error as Error).message}\n${logs()}`);
  }

  return {
    dir,
    apiKey,
    rooms,
    tokens,
    captureUrl: `${captureOrigin}/`,
    uiUrl: `${uiOrigin}/`,
    relayUrl,
    proxy,
    logs,
    async restartRelay() {
      await relay.stop();
      relay = startService('relay', relayEnv);
      await relayReady();
    },
    async stopGateway() {
      await gateway.stop();
    },
    async startGateway() {
      gateway = startService('speech', gatewayEnv);
      await gatewayReady();
    },
    async stop() {
      await proxy.stop();
      await Promise.all(services().map((service) => service.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
