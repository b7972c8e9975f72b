/**
 * What workers send through Redis is checked where the gateway reads it: a result or an
 * announcement of another shape (another version's worker, a corrupted key) is refused, not used.
 */
import { runRedisUrl } from '@live-captions/test-services';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createRedisQueue, InferenceError } from '../src/index.js';
import { keysFor } from '../src/redis/keys.js';
import { later, request, seconds } from './fixtures.js';

const REDIS_URL = runRedisUrl();

describe('the gateway end of the Redis queue', () => {
  const queueName = `test-boundaries-${Date.now()}`;
  const redis = new Redis(REDIS_URL);
  const queue = createRedisQueue({ redisUrl: REDIS_URL, queueName });

  beforeAll(() => queue.start());
  afterAll(async () => {
    await queue.close();
    const stale = await redis.keys(`*${queueName}*`);
    if (stale.length > 0) await redis.del(...stale);
    redis.disconnect();
  });

  it('fails a request whose result is not an InferenceResult', async () => {
    // A worker that speaks another protocol: it answers with a shape the gateway does not know.
    const stranger = new Worker(queueName, async () => ({ text: 42, words: [] }), {
      connection: { url: REDIS_URL, maxRetriesPerRequest: null },
    });
    try {
      await expect(queue.submit(request(), seconds(1), { startDeadline: later(20_000) })).rejects.toEqual(
        new InferenceError('inference_failed', 'the worker answered with a malformed result'),
      );
    } finally {
      await stranger.close();
    }
  });

  it('leaves out announcements that are not a worker status', async () => {
    const keys = keysFor(queueName);
    await redis.set(keys.worker('garbled'), '{"id":"garbled"', 'PX', 10_000);
    await redis.set(
      keys.worker('other-version'),
      JSON.stringify({ id: 'other-version', slots: 2 }),
      'PX',
      10_000,
    );
    expect((await queue.status()).workers).toEqual([]);
  });
});
