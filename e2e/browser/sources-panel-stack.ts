/**
 * The stream sources panel's stack for its browser suite: the real relay, speech gateway
 * (synthetic speech model), stream sources service (RTMP push on a free port) and UI on free
 * ports, the source room read from here, and a port nobody answers on (a dead encoder).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RelayCaption } from '@live-captions/protocol';
import { createReader } from '@live-captions/relay-client/node';
import { newToken, relayConfigText } from '@live-captions/secret-files';
import { buildPages } from '@live-captions/web';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';
import { ROOT } from './stack.js';

export const SOURCE_ROOM = 'panel-source';

export interface SourcesPanelStack {
  /** The links hub. */
  hub: string;
  sourcesApi: string;
  /** A free port nobody listens on. */
  refusedPort: number;
  /** What the source room carried, as it came. */
  captions: RelayCaption[];
  /** Every process's output, for a failure's message. */
  logs(): string;
  stop(): Promise<void>;
}

/** Started with `apiKey` as the service access token. */
export async function startSourcesPanelStack(apiKey: string): Promise<SourcesPanelStack> {
  const tokens = {
    sourceRead: newToken(),
    sourceWrite: newToken(),
    outputRead: newToken(),
    outputWrite: newToken(),
  };
  let services: ServiceProcess[] = [];
  const logs = () => services.map((s) => `--- ${s.name}\n${s.output()}`).join('\n');
  const captions: RelayCaption[] = [];
  await buildPages();
  const dir = mkdtempSync(join(tmpdir(), 'e2e-sources-'));
  const [relayPort, uiPort, sourcesPort, gatewayPort, rtmpPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const refusedPort = await freePort();
  const [srtFirst] = [await freePort()];
  const uiOrigin = `http://127.0.0.1:${uiPort}`;
  const relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
  const config = join(dir, 'relay.private.json');
  writeFileSync(
    config,
    relayConfigText({
      origins: [uiOrigin],
      sourceRoom: SOURCE_ROOM,
      outputRoom: 'panel-output',
      tokens,
      relayAddress: relayUrl,
      relaySite: `${uiOrigin}/`,
    }),
  );
  const noLocalEnv = join(dir, 'caption-local.env');
  services = [
    startService('relay', { LOG_LEVEL: 'warn', RELAY_PORT: String(relayPort), CAPTION_RELAY_CONFIG: config }),
    startService('speech', {
      LOG_LEVEL: 'warn',
      CAPTION_BIND: '127.0.0.1',
      CAPTION_PORT: String(gatewayPort),
      CAPTION_MODEL: join(ROOT, 'models/ggml-synthetic-tiny-speech.bin'),
      CAPTION_OFFLINE: '1',
      CAPTION_THREADS: '1',
      CAPTION_API_KEY: apiKey,
      CAPTION_LOCAL_ENV_FILE: noLocalEnv,
      CAPTION_RELAY_TOKENS_FILE: join(dir, 'relay-tokens.env'),
    }),
    startService('sources', {
      LOG_LEVEL: 'info',
      PATH: `${process.env.PATH}:/usr/sbin:/sbin`,
      SOURCES_PORT: String(sourcesPort),
      SOURCES_DATA_DIR: join(dir, 'sources'),
      CAPTION_URL: `http://127.0.0.1:${gatewayPort}`,
      CAPTION_API_KEY: apiKey,
      CAPTION_LOCAL_ENV_FILE: noLocalEnv,
      RELAY_URL: relayUrl,
      CAPTION_RELAY_CONFIG: config,
      SOURCES_ALLOWED_ORIGINS: uiOrigin,
      SOURCES_ALLOWED_HOSTS: '127.0.0.1',
      SOURCES_RTMP_PORT: String(rtmpPort),
      SOURCES_SRT_PORTS: `${srtFirst}-${srtFirst}`,
      SOURCES_PUBLIC_HOST: '127.0.0.1',
    }),
    startService('ui', {
      LOG_LEVEL: 'warn',
      UI_PORT: String(uiPort),
      RELAY_URL: relayUrl,
      CAPTURE_URL: '',
      OUTPUTS_URL: '',
      SOURCES_URL: `http://127.0.0.1:${sourcesPort}/`,
      // This relay has no rooms store, so no rooms API: no rooms board.
      RELAY_API_URL: '',
    }),
  ];
  const auth = { headers: { Authorization: `Bearer ${apiKey}` } };
  try {
    await until(
      'the gateway',
      async () => (await fetch(`http://127.0.0.1:${gatewayPort}/health`, auth)).ok,
      90_000,
    );
    await until(
      'the sources service',
      async () => (await fetch(`http://127.0.0.1:${sourcesPort}/health`)).ok,
      60_000,
    );
    await until('the ui', async () => (await fetch(`${uiOrigin}/health`)).ok, 30_000);
  } catch (error) {
    const message = `${(error as Error).message}\n${logs()}`;
    await Promise.all(services.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
    throw new Error(message);
  }
  const reader = createReader({
    url: relayUrl,
    room: SOURCE_ROOM,
    token: tokens.sourceRead,
    onCaption: (caption) => captions.push(caption),
  });
  return {
    hub: `${uiOrigin}/links.html`,
    sourcesApi: `http://127.0.0.1:${sourcesPort}`,
    refusedPort,
    captions,
    logs,
    async stop() {
      reader.close();
      await Promise.all(services.map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
