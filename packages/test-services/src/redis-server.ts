import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { childExit } from './child-output.js';
import { freePort } from './free-port.js';

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Starts it again on the same port, empty (no persistence, as in production). */
  start(): Promise<void>;
  /** Clean shutdown (SIGTERM); resolves when the process has exited. */
  stop(): Promise<void>;
  /** SIGKILL: a crash, as a dying host would look. */
  kill(): Promise<void>;
  readonly running: boolean;
}

/** Resolves once `+PONG` comes back from 127.0.0.1:port, rejects after `timeoutMs`. */
async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.setTimeout(500, () => socket.destroy());
      socket.once('error', () => resolve(false));
      socket.once('close', () => resolve(false));
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        resolve(data.toString().startsWith('+PONG'));
        socket.destroy();
      });
    });
    if (ok) return;
    if (Date.now() > deadline)
      throw new Error(`redis-server on port ${port} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A private `redis-server` on a free loopback port, without persistence. Tests that stop, kill or
 * restart Redis use one of these, never the shared 6379.
 */
export async function startRedisServer(options: { port?: number } = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const output: string[] = [];

  async function start(): Promise<void> {
    if (child) return;
    const proc = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = proc;
    exited = childExit(proc, (chunk) => output.push(chunk)).then(() => {
      if (child === proc) child = undefined;
    });
    try {
      await waitForPong(port, 10_000);
    } catch (error) {
      proc.kill('SIGKILL');
      throw new Error(`${(error as Error).message}\n${output.join('')}`);
    }
  }

  async function signal(name: NodeJS.Signals): Promise<void> {
    if (!child) return;
    child.kill(name);
    await exited;
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    get running() {
      return child !== undefined;
    },
  };
}
