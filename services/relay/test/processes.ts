import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FROM_SOURCE } from '@live-captions/test-services';
import type { RelayLimits } from '../src/app.js';
import { configFile } from './helpers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export interface RelayProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** SIGKILL: the node dies as a crashing host would, without closing its sockets. */
  kill(): Promise<void>;
}

/** Runs the relay's entry point (services/relay/src/index.ts) as its own process, on a free port. */
export async function spawnRelay(
  env: Record<string, string>,
  limits: Partial<RelayLimits> = {},
): Promise<RelayProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'relay-node-'));
  const configPath = join(dir, 'relay.private.json');
  writeFileSync(configPath, JSON.stringify(configFile(limits)));
  const child = spawn(process.execPath, [...FROM_SOURCE, join(root, 'services/relay/src/index.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      CAPTION_RELAY_CONFIG: configPath,
      RELAY_PORT: '0',
      RELAY_BIND: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const output: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const found = /"port":(\d+)/.exec(buffered)?.[1];
      if (found) resolve(Number(found));
    });
    child.once('exit', (code) =>
      reject(new Error(`relay exited with ${code}: ${output.join('')}${buffered}`)),
    );
  });
  // Ready once it is in sync with Redis.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`)
      .then((res) => res.ok)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error('relay process did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let killed = false;
  return {
    child,
    url: `ws://127.0.0.1:${port}/ws`,
    async kill() {
      if (!killed) {
        killed = true;
        child.kill('SIGKILL');
      }
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
