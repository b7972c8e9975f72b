import { runRedisUrl } from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { createRedisQueue, type InferenceQueue, type RunningWorker, startRedisWorker } from '../src/index.js';
import { engineConfig, jfk, later, request, seconds } from './fixtures.js';

const REDIS_URL = runRedisUrl();

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('BullMQ backend on the real Redis', () => {
  const config = engineConfig({ decodeSlots: 2, threadsPerSlot: 1 });
  let queue: InferenceQueue;
  let worker: RunningWorker;
  const redis = new Redis(REDIS_URL);

  beforeAll(async () => {
    queue = createRedisQueue({ redisUrl: REDIS_URL, queueName: config.queueName });
    await queue.start();
    expect((await queue.status()).workers).toEqual([]);
    expect(await queue.engine()).toBeUndefined();
    worker = await startRedisWorker({ redisUrl: REDIS_URL, engine: config, id: 'worker-a' });
  });

  afterAll(async () => {
    await worker?.close();
    await queue.close();
    const stale = await redis.keys(`bull:${config.queueName}:*`);
    if (stale.length > 0) await redis.del(...stale);
    redis.disconnect();
  });

  it('announces the ready worker with its engine figures', async () => {
    const status = await queue.status();
    expect(status.workers).toHaveLength(1);
    expect(status.workers[0]).toMatchObject({
      id: 'worker-a',
      ready: true,
      engine: { model: 'synthetic-tiny', decodeSlots: 2 },
    });
    expect(await queue.engine()).toMatchObject({
      multilingual: true,
      modes: ['transcribe', 'translate', 'both'],
    });
  });

  it('round-trips a job with binary audio', async () => {
    const result = await queue.submit(request({ mode: 'both', language: 'es' }), seconds(2), {
      startDeadline: later(20_000),
    });
    expect(result).toMatchObject({
      text: 'test',
      transcript: 'test',
      translation: 'test',
      language: 'es',
      audioSeconds: 2,
    });
    // The audio key is gone once the job ran.
    expect(await redis.keys(`captions:${config.queueName}:audio:*`)).toEqual([]);
  });

  it('announces a finished job at once, not at the next heartbeat', async () => {
    const before = (await queue.status()).workers[0]!.completed;
    await queue.submit(request(), seconds(1), { startDeadline: later(20_000) });
    expect((await queue.status()).workers[0]).toMatchObject({ running: 0, completed: before + 1 });
  });

  it('carries failure codes back to the gateway', async () => {
    await expect(
      queue.submit(request({ language: 'xx' }), seconds(1), { startDeadline: later(20_000) }),
    ).rejects.toMatchObject({ code: 'unsupported', message: 'Unknown language code' });
  });

  it('runs as many jobs at once as it has decode states', async () => {
    const results = await Promise.all(
      [1, 2, 3].map(() => queue.submit(request(), seconds(1.5), { startDeadline: later(30_000) })),
    );
    expect(results.map((r) => r.committedSeconds)).toEqual([1.5, 1.5, 1.5]);
  });

  it('removes a job that did not start before its deadline so it never runs', async () => {
    const before = worker.pool.stats.completed;
    // Two long jobs occupy both decode states; the third can only wait.
    const long = [1, 2].map(() =>
      queue.submit(request({ language: 'auto' }), jfk, { startDeadline: later(30_000) }),
    );
    await until(async () => worker.pool.running === 2, 'both decode states busy');
    const late = queue.submit(request(), seconds(1), { startDeadline: later(10) });
    await expect(late).rejects.toMatchObject({ code: 'queue_timeout' });
    await Promise.all(long);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(worker.pool.stats.completed).toBe(before + 2);
    expect((await queue.status()).pending).toBe(0);
  });

  it('finishes a running job on shutdown and withdraws its announcement', async () => {
    const second = await startRedisWorker({
      redisUrl: REDIS_URL,
      engine: { ...config, decodeSlots: 1 },
      id: 'worker-b',
    });
    await until(async () => (await queue.status()).workers.length === 2, 'two workers');
    // Stop the first worker so the job lands on the second.
    await worker.close();
    const running = queue.submit(request(), jfk, { startDeadline: later(30_000) });
    await until(async () => second.pool.running === 1, 'the job to start');
    await second.close();
    await expect(running).resolves.toMatchObject({ text: 'test' });
    expect((await queue.status()).workers).toEqual([]);
    worker = await startRedisWorker({ redisUrl: REDIS_URL, engine: config, id: 'worker-a' });
  });
});
