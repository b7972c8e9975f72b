/**
 * The smaller stack the audience suite needs: the relay (generated config, default limits) and
 * the UI service serving the built pages, on free ports, the relay restartable.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newToken, relayConfigText } from '@live-captions/secret-files';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';

export interface AudienceStack {
  uiUrl: string;
  relayUrl: string;
  room: string;
  readToken: string;
  writeToken: string;
  restartRelay(): Promise<void>;
  stop(): Promise<void>;
  logs(): string;
}

export async function startAudienceStack(): Promise<AudienceStack> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-audience-'));
  const [relayPort, uiPort] = [await freePort(), await freePort()];
  const uiOrigin = `http://127.0.0.1:${uiPort}`;
  const relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
  const tokens = {
    sourceRead: newToken(),
    sourceWrite: newToken(),
    outputRead: newToken(),
    outputWrite: newToken(),
  };
  const config = relayConfigText({
    origins: [uiOrigin],
    sourceRoom: 'audience-source',
    outputRoom: 'audience-output',
    tokens,
    relayAddress: relayUrl,
    relaySite: `${uiOrigin}/`,
  });
  writeFileSync(join(dir, 'relay.private.json'), config);
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
    CAPTURE_URL: '',
  });
  const services = (): ServiceProcess[] => [relay, ui];
  const logs = () =>
    services()
      .map((s) => `--- ${s.name}\n${s.output()}`)
      .join('\n');
  const relayReady = () =>
    until('the relay', async () => (await fetch(`http://127.0.0.1:${relayPort}/health`)).ok, 30_000);
  try {
    await relayReady();
    await until('the ui', async () => (await fetch(`${uiOrigin}/health`)).ok, 30_000);
  } catch (error) {
    await Promise.all(services().map((s) => s.stop()));
    throw new Error(`${(error as Error).message}\n${logs()}`);
  }
  return {
    uiUrl: `${uiOrigin}/`,
    relayUrl,
    room: 'audience-output',
    readToken: tokens.outputRead,
    writeToken: tokens.outputWrite,
    logs,
    async restartRelay() {
      await relay.stop();
      relay = startService('relay', relayEnv);
      await relayReady();
    },
    async stop() {
      await Promise.all(services().map((s) => s.stop()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
