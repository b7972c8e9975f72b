// The worker's container health check (`node dist/health.js`) against the test run's private
// Redis: it passes only while this worker's heartbeat key lives, and fails within its own
// timeout when Redis is away or does not answer.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FROM_SOURCE, freePort, runRedisUrl } from '@live-captions/test-services';
import { Redis } from 'ioredis';

const serviceDir = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const REDIS_URL = runRedisUrl();
const queue = `health-${process.pid}-${Date.now()}`;
const heartbeatKey = (id: string) => `captions:${queue}:worker:${id}`;

async function health(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...FROM_SOURCE, 'src/health.ts'], {
    cwd: serviceDir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

describe('worker health check', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await redis.del(heartbeatKey('alive'));
    redis.disconnect();
  });

  it('passes while the worker’s heartbeat key lives, and names the worker otherwise', async () => {
    await redis.set(heartbeatKey('alive'), '{}', 'PX', 30_000);
    const env = { REDIS_URL, CAPTION_QUEUE_NAME: queue };
    expect(await health({ ...env, WORKER_ID: 'alive' })).toEqual({ code: 0, output: '' });
    expect(await health({ ...env, WORKER_ID: 'gone' })).toEqual({
      code: 1,
      output: 'unhealthy: worker gone has no live heartbeat in Redis (model still loading?)\n',
    });
  });

  it('fails on the worker’s own configuration errors', async () => {
    const missing = await health({ WORKER_ID: 'alive' });
    expect(missing.code).toBe(1);
    expect(missing.output).toMatch(/^unhealthy: Invalid configuration:.*REDIS_URL/s);
    const wrong = await health({ REDIS_URL, CAPTION_QUEUE_NAME: 'no spaces', WORKER_ID: 'alive' });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toMatch(/^unhealthy: Invalid configuration:.*CAPTION_QUEUE_NAME/s);
  });

  it('fails when nothing listens at REDIS_URL', async () => {
    const port = await freePort();
    const down = await health({ REDIS_URL: `redis://127.0.0.1:${port}`, WORKER_ID: 'alive' });
    expect(down.code).toBe(1);
    expect(down.output).toBe(`unhealthy: Redis connection failed (connect ECONNREFUSED 127.0.0.1:${port})\n`);
  });

  it('gives up after its timeout when Redis accepts the connection but never answers', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const hung = await health({ REDIS_URL: `redis://127.0.0.1:${port}`, WORKER_ID: 'alive' });
      expect(hung.code).toBe(1);
      expect(hung.output).toBe('unhealthy: Redis did not answer within 4 s\n');
      // the connection was made: the check itself stopped waiting, not the socket
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => silent.close(() => done()));
    }
  });
});
