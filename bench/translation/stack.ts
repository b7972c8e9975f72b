/**
 * The servers one run of `pnpm bench translation` talks to, as the outputs tests start them: the
 * relay with an output room, a private PostgreSQL cluster and the outputs service, as processes
 * from source; and the outputs API as the editor calls it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  callApi,
  killAll,
  type PostgresCluster,
  type ServiceProcess,
  startPostgresCluster,
  startServiceProcess,
} from '@live-captions/test-services';

const root = fileURLToPath(new URL('../../', import.meta.url));
const RELAY_ENTRY = join(root, 'services/relay/src/index.ts');
const OUTPUTS_ENTRY = join(root, 'services/outputs/src/index.ts');

export const ROOM = 'captions-output';
export const TOKENS = {
  read: 'benchRead_cccccccccccccccccccccccccccccccc',
  write: 'benchWrite_ddddddddddddddddddddddddddddddd',
};

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `probe` holds, every 100 ms; the error names what never happened. */
export async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await Promise.resolve(probe()).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(100);
  }
}

/** The port a service logged with `message` (its "listening" line). */
async function portOf(proc: ServiceProcess, message: RegExp): Promise<number> {
  await until(`${message} in the log:\n${proc.output().slice(-3000)}`, () => {
    if (proc.child.exitCode !== null) throw new Error(`exited:\n${proc.output().slice(-3000)}`);
    return proc.logLines(message).length > 0;
  });
  return Number(proc.logLines(message)[0]?.port);
}

export interface Stack {
  relayUrl: string;
  outputsPort: number;
  outputs: ServiceProcess;
  stop(): Promise<void>;
}

/** Starts PostgreSQL, the relay and the outputs service (Apertium at `apertiumUrl`). */
export async function startStack(apertiumUrl: string): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-translation-'));
  const configPath = join(dir, 'relay.private.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      origins: ['http://localhost:8081'],
      rooms: { [ROOM]: { read: TOKENS.read, write: TOKENS.write } },
    }),
  );
  const processes: ServiceProcess[] = [];
  let postgres: PostgresCluster | undefined;
  const stop = async () => {
    await killAll(processes.reverse());
    await postgres?.destroy();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    postgres = await startPostgresCluster();
    const relay = startServiceProcess(RELAY_ENTRY, { CAPTION_RELAY_CONFIG: configPath, RELAY_PORT: '0' });
    processes.push(relay);
    const relayPort = await portOf(relay, /^relay listening$/);
    await until('relay ready', async () => (await fetch(`http://127.0.0.1:${relayPort}/health`)).ok);
    const relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
    const outputs = startServiceProcess(OUTPUTS_ENTRY, {
      OUTPUTS_PORT: '0',
      CAPTION_RELAY_CONFIG: configPath,
      RELAY_URL: relayUrl,
      DATABASE_URL: postgres.url(),
      OUTPUTS_DATA_DIR: join(dir, 'outputs'),
      OUTPUTS_APERTIUM_URL: apertiumUrl,
    });
    processes.push(outputs);
    const outputsPort = await portOf(outputs, /^outputs listening$/);
    return { relayUrl, outputsPort, outputs, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Calls the outputs API with the room's write token, as the editor does. */
export const api = (port: number, method: string, path: string, body?: unknown) =>
  callApi(port, method, path, TOKENS.write, body);
