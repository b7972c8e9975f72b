/**
 * The gateway (services/speech) and the worker (services/worker) as real processes, as an
 * operator runs them, with their JSON log lines kept for assertions.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, until } from './gateway.js';

export const GATEWAY_ENTRY = join(repoRoot, 'services/speech/src/index.ts');
export const WORKER_ENTRY = join(repoRoot, 'services/worker/src/index.ts');

export interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

export function startProcess(env: Record<string, string>, entry = GATEWAY_ENTRY): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_LEVEL: 'info',
      CAPTION_PORT: '0',
      CAPTION_MODEL: join(repoRoot, 'models/ggml-synthetic-tiny.bin'),
      CAPTION_THREADS: '1',
      CAPTION_OFFLINE: '1',
      CAPTION_LOCAL_ENV_FILE: '/nonexistent/caption-local.env',
      CAPTION_RELAY_TOKENS_FILE: '/nonexistent/relay-tokens.env',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => text, exited };
}

/** The port from the gateway's "listening" log line. */
export async function listeningPort(started: Started): Promise<number> {
  await until(
    () => /"msg":"speech gateway listening"/.test(started.output()),
    'the gateway to listen',
    20_000,
  );
  const line = started
    .output()
    .split('\n')
    .find((entry) => entry.includes('speech gateway listening'))!;
  return (JSON.parse(line) as { port: number }).port;
}

/** The JSON log lines of a process whose `msg` matches. */
export function logLines(started: Started, msg: RegExp): Record<string, unknown>[] {
  return started
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => msg.test(String(entry.msg)));
}
