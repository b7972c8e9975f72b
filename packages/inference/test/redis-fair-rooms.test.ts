/**
 * Fair across caption rooms on the shared BullMQ queue: windows queued while no worker runs are
 * taken every room's first before any room's second (BullMQ priorities the gateway sets), not
 * in one FIFO line. The real Redis of the run, a real worker on a synthetic model, one slot.
 */
import { runRedisUrl } from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { createRedisQueue, type InferenceQueue, type RunningWorker, startRedisWorker } from '../src/index.js';
import { engineConfig, later, request, seconds } from './fixtures.js';

const REDIS_URL = runRedisUrl();

describe('BullMQ backend, fair across caption rooms', () => {
  const config = { ...engineConfig({ decodeSlots: 1, threadsPerSlot: 1 }), queueName: 'fair-rooms-test' };
  let queue: InferenceQueue;
  let worker: RunningWorker | undefined;
  const redis = new Redis(REDIS_URL);

  beforeAll(async () => {
    queue = createRedisQueue({ redisUrl: REDIS_URL, queueName: config.queueName });
    await queue.start();
  });

  afterAll(async () => {
    await worker?.close();
    await queue.close();
    const stale = await redis.keys(`bull:${config.queueName}:*`);
    if (stale.length > 0) await redis.del(...stale);
    redis.disconnect();
  });

  it("takes a quiet room's window before the busy room's second", async () => {
    const order: string[] = [];
    const submit = (room: string, stream: string) =>
      queue
        .submit(request({ room, streamId: stream }), seconds(1), { startDeadline: later(60_000) })
        .then(() => order.push(`${room}/${stream}`));
    // Queued while no worker runs: a busy room's four streams first, then two quiet rooms.
    const all = [
      ...['a1', 'a2', 'a3', 'a4'].map((stream) => submit('hall-a', stream)),
      submit('hall-b', 'b1'),
      submit('hall-c', 'c1'),
    ];
    for (let i = 0; i < 100 && (await queue.status()).pending < 6; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    worker = await startRedisWorker({ redisUrl: REDIS_URL, engine: config, id: 'fair-worker' });
    await Promise.all(all);
    expect(order).toEqual(['hall-a/a1', 'hall-b/b1', 'hall-c/c1', 'hall-a/a2', 'hall-a/a3', 'hall-a/a4']);
  }, 90_000);
});
