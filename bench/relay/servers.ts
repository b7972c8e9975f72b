/**
 * The servers `pnpm bench relay` loads: one relay, two relay nodes on a private Redis (cluster
 * mode, stream or pub/sub fan-out) or the bare `ws` broadcast, as child processes from source;
 * and what /proc says of a process's memory and CPU.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FROM_SOURCE, type RedisServer, startRedisServer } from '@live-captions/test-services';

// ioredis from the relay's dependencies (bench/ is not a package), for the redis-server's pid:
// its CPU is part of the cluster's cost.
const { Redis } = createRequire(new URL('../../services/relay/package.json', import.meta.url))('ioredis') as {
  Redis: new (url: string) => { info(section: string): Promise<string>; disconnect(): void };
};

const root = fileURLToPath(new URL('../../', import.meta.url));

export type Kind = 'relay' | 'bare' | 'cluster-stream' | 'cluster-pubsub';
export const KINDS: Kind[] = ['relay', 'cluster-stream', 'cluster-pubsub', 'bare'];

/** One server process (a relay node or the bare broadcast). */
export interface Process {
  child: ChildProcess;
  url: string;
}

/** What a run talks to: one process, or two relay nodes on a private Redis. */
export interface Server {
  kind: Kind;
  nodes: Process[];
  redis?: RedisServer;
  redisPid?: number;
}

function startProcess(
  kind: 'relay' | 'bare',
  configPath: string,
  env: Record<string, string> = {},
): Promise<Process> {
  const entry =
    kind === 'relay' ? join(root, 'services/relay/src/index.ts') : join(root, 'bench/relay/bare.ts');
  const child = spawn(process.execPath, [...FROM_SOURCE, entry], {
    cwd: root,
    env: {
      ...process.env,
      CAPTION_RELAY_CONFIG: configPath,
      RELAY_PORT: '0',
      RELAY_BIND: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n')) {
        const port = /"port":(\d+)/.exec(line)?.[1];
        if (port) {
          child.stdout!.removeAllListeners('data');
          child.stdout!.resume();
          resolve({ child, url: kind === 'relay' ? `ws://127.0.0.1:${port}/ws` : `ws://127.0.0.1:${port}` });
          return;
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

/** Waits until a relay node answers /health with 200 (cluster: in sync with Redis). */
async function ready(url: string): Promise<void> {
  const health = url.replace(/^ws/, 'http').replace(/\/ws$/, '/health');
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(health).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${health} did not become ready`);
}

export async function startServer(kind: Kind, configPath: string): Promise<Server> {
  if (kind === 'relay' || kind === 'bare') return { kind, nodes: [await startProcess(kind, configPath)] };
  // A private redis-server per run (never the shared 6379), two relay nodes on it.
  const redis = await startRedisServer();
  const client = new Redis(redis.url);
  const info = await client.info('server');
  client.disconnect();
  const redisPid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  const fanout = kind === 'cluster-stream' ? 'stream' : 'pubsub';
  const nodes = await Promise.all(
    ['a', 'b'].map((id) =>
      startProcess('relay', configPath, {
        REDIS_URL: redis.url,
        RELAY_NODE_ID: id,
        RELAY_REDIS_FANOUT: fanout,
      }),
    ),
  );
  for (const node of nodes) await ready(node.url);
  return { kind, nodes, redis, redisPid };
}

export async function stopServer(server: Server): Promise<void> {
  for (const node of server.nodes) {
    node.child.kill('SIGTERM');
    await new Promise((r) => node.child.once('exit', r));
  }
  await server.redis?.stop();
}

export function rssMiB(pid: number): number {
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return Number.NaN; // the process is gone
  }
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** CPU seconds (user + system) the process has used so far. */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
