/**
 * The gateway's BullMQ producer against a private redis-server that the test kills: it fails
 * fast while Redis is away, and a request in flight is answered by its deadline whatever Redis
 * does. (The whole path with worker processes is in services/speech/test/faults.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { queuedJobs, type RedisServer, startRedisServer } from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { createRedisQueue, InferenceError } from '../src/index.js';
import { later, request, seconds } from './fixtures.js';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await redis.stop();
});

describe('Redis queue while Redis is away', () => {
  it('refuses new jobs at once, answers the one in flight by its deadline, and closes without Redis', async () => {
    const queueName = `faults-${Math.random().toString(36).slice(2)}`;
    // No worker: the job stays queued. A short watchdog keeps the request deadline near.
    const queue = createRedisQueue({ redisUrl: redis.url, queueName, watchdogMs: 500 });
    await queue.start();
    const inspector = new Redis(redis.url);
    const submitted = Date.now();
    const inFlight = queue
      .submit(request(), seconds(1), { startDeadline: later(1_000) })
      .catch((error) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await queuedJobs(inspector, queueName)).toBe(1);
    inspector.disconnect();

    try {
      await redis.kill();
      await expect(queue.status()).rejects.toMatchObject({ code: 'unavailable' });
      // The connection's 'close' event tells the queue at once; a write racing it would instead
      // be kept and submitted again when Redis is back.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const refusedAt = Date.now();
      await expect(
        queue.submit(request(), seconds(1), { startDeadline: later(1_000) }),
      ).rejects.toMatchObject({
        code: 'unavailable',
        message: expect.stringMatching(/^redis unreachable/),
      });
      expect(Date.now() - refusedAt).toBeLessThan(1_000);

      // Queue deadline (1 s) + watchdog (0.5 s) + the 15 s margin: answered, never left hanging.
      const outcome = await inFlight;
      expect(outcome).toBeInstanceOf(InferenceError);
      expect((outcome as InferenceError).code).toBe('unavailable');
      expect(Date.now() - submitted).toBeLessThan(30_000);
    } finally {
      const closing = Date.now();
      await queue.close();
      expect(Date.now() - closing).toBeLessThan(5_000);
      await redis.start();
    }
  }, 60_000);
});
