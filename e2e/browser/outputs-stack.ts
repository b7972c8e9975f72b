/**
 * The editor's "Where captions go" on real processes, for the panels' suites: a relay with the
 * event's two rooms, the outputs service and the UI on free ports, and the editor's link to the
 * output room (its write token, the source room's read token).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newToken, relayConfigText } from '@live-captions/secret-files';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';

export interface OutputsStack {
  uiOrigin: string;
  relayUrl: string;
  tokens: { sourceRead: string; sourceWrite: string; outputRead: string; outputWrite: string };
  editorLink: string;
  /** Every process's output, for a failure's message. */
  logs(): string;
  stop(): Promise<void>;
}

export interface OutputsStackOptions {
  /** Names the temporary folder. */
  name: string;
  sourceRoom: string;
  outputRoom: string;
  /** The outputs service's own settings (allowed hosts, engines, pacing). */
  outputsEnv: Record<string, string>;
}

export async function startOutputsStack(options: OutputsStackOptions): Promise<OutputsStack> {
  const dir = mkdtempSync(join(tmpdir(), `e2e-${options.name}-`));
  const [relayPort, uiPort, outputsPort] = [await freePort(), await freePort(), await freePort()];
  const uiOrigin = `http://127.0.0.1:${uiPort}`;
  const relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
  const tokens = {
    sourceRead: newToken(),
    sourceWrite: newToken(),
    outputRead: newToken(),
    outputWrite: newToken(),
  };
  const config = join(dir, 'relay.private.json');
  writeFileSync(
    config,
    relayConfigText({
      origins: [uiOrigin],
      sourceRoom: options.sourceRoom,
      outputRoom: options.outputRoom,
      tokens,
      relayAddress: relayUrl,
      relaySite: `${uiOrigin}/`,
    }),
  );
  const services: ServiceProcess[] = [
    startService('relay', { LOG_LEVEL: 'warn', RELAY_PORT: String(relayPort), CAPTION_RELAY_CONFIG: config }),
    startService('outputs', {
      LOG_LEVEL: 'warn',
      OUTPUTS_PORT: String(outputsPort),
      OUTPUTS_DATA_DIR: join(dir, 'outputs'),
      RELAY_URL: relayUrl,
      CAPTION_RELAY_CONFIG: config,
      OUTPUTS_ALLOWED_ORIGINS: uiOrigin,
      ...options.outputsEnv,
    }),
    startService('ui', {
      LOG_LEVEL: 'warn',
      UI_PORT: String(uiPort),
      RELAY_URL: relayUrl,
      CAPTURE_URL: '',
      OUTPUTS_URL: `http://127.0.0.1:${outputsPort}/`,
      // This relay has no rooms store, so no rooms API: no rooms board.
      RELAY_API_URL: '',
    }),
  ];
  const logs = () => services.map((s) => `--- ${s.name}\n${s.output()}`).join('\n');
  const stop = async () => {
    await Promise.all(services.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(
      'the outputs service on the relay',
      async () => {
        const health = await fetch(`http://127.0.0.1:${outputsPort}/health`);
        return ((await health.json()) as { relay?: string }).relay === 'connected';
      },
      // Its embedded database starts in ~5 s on an idle machine, over a minute on a loaded one.
      180_000,
    );
    await until('the ui', async () => (await fetch(`${uiOrigin}/health`)).ok, 30_000);
  } catch (error) {
    const message = `${(error as Error).message}\n${logs()}`;
    await stop();
    throw new Error(message);
  }
  const fragment = new URLSearchParams({
    relayUrl,
    sourceRoom: options.sourceRoom,
    sourceReadToken: tokens.sourceRead,
    outputRoom: options.outputRoom,
    outputWriteToken: tokens.outputWrite,
  });
  return { uiOrigin, relayUrl, tokens, editorLink: `${uiOrigin}/editor.html#${fragment}`, logs, stop };
}
