import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { InferenceError } from '../src/index.js';
import { enqueue } from '../src/redis/enqueue.js';
import { encodeFailure } from '../src/redis/failure.js';
import { reconcilePass } from '../src/redis/reconcile.js';
import { pendingRequest, RESULT, settledWithin, startProducer, type TestProducer } from './producer.js';

let producer: TestProducer;
beforeEach(async () => {
  producer = await startProducer();
});
afterEach(() => producer.close());

const always = () => true;

/** Enqueues a request, lets a real worker finish its job with `process`, and waits for the stored outcome. */
async function finishedWhileAway(process: () => Promise<unknown>) {
  const request = pendingRequest();
  const done = new Promise<void>((resolve) => {
    const worker = producer.startWorker(process);
    worker.on('completed', () => resolve());
    worker.on('failed', () => resolve());
  });
  await enqueue(producer, request.entry);
  await done;
  return request;
}

describe('a reconcile pass', () => {
  it('answers a request from the result its job stored while nobody listened', async () => {
    const { entry, outcome } = await finishedWhileAway(async () => RESULT);
    expect(await settledWithin(outcome, 50)).toBe(false);
    expect(await reconcilePass(producer, always)).toBe(true);
    expect(await outcome).toEqual(RESULT);
    expect(producer.pending.waiting(entry)).toBe(false);
  });

  it('answers a request from the failure its job stored, with the failure code', async () => {
    const { outcome } = await finishedWhileAway(async () => {
      throw new Error(
        encodeFailure(new InferenceError('unsupported', 'translate needs a multilingual model')),
      );
    });
    await reconcilePass(producer, always);
    expect(await outcome).toEqual(new InferenceError('unsupported', 'translate needs a multilingual model'));
    expect(((await outcome) as InferenceError).code).toBe('unsupported');
  });

  it('checks a stored result as an event result: a malformed one fails the request', async () => {
    const { outcome } = await finishedWhileAway(async () => ({ text: 42 }));
    await reconcilePass(producer, always);
    expect(((await outcome) as InferenceError).code).toBe('inference_failed');
  });

  it('leaves a job still waiting to its events', async () => {
    const { entry, outcome } = pendingRequest();
    await enqueue(producer, entry);
    const jobId = entry.jobId;
    expect(await reconcilePass(producer, always)).toBe(true);
    expect(entry.jobId).toBe(jobId);
    expect(producer.pending.waiting(entry)).toBe(true);
    expect(await settledWithin(outcome, 50)).toBe(false);
  });

  it('submits a job that Redis lost again, under a new id, from the kept audio', async () => {
    const { entry } = pendingRequest({ queueTimeoutMs: 30_000, deadlineMs: 40_000 });
    await enqueue(producer, entry);
    const lost = entry.jobId;
    await producer.queue.obliterate({ force: true });
    await producer.redis.del(producer.keys.audio(lost));

    expect(await reconcilePass(producer, always)).toBe(true);
    expect(entry.jobId).not.toBe(lost);
    expect(producer.pending.get(lost)).toBeUndefined();
    expect(producer.pending.get(entry.jobId)).toBe(entry);
    expect(await (await producer.queue.getJob(entry.jobId))?.getState()).toBe('prioritized');
    expect(await producer.redis.exists(producer.keys.audio(entry.jobId))).toBe(1);
    // The lost job's timers are gone: one request deadline, one start deadline for the new job.
    expect(entry.timers).toHaveLength(2);
  });

  it('stops at once when told to (closed, or the connection dropped again)', async () => {
    const { entry } = pendingRequest();
    await enqueue(producer, entry);
    const jobId = entry.jobId;
    await producer.queue.obliterate({ force: true });
    expect(await reconcilePass(producer, () => false)).toBe(false);
    expect(entry.jobId).toBe(jobId);
  });

  it('reports an incomplete pass when Redis fails under it', async () => {
    const { entry } = pendingRequest();
    await enqueue(producer, entry);
    await producer.queue.disconnect();
    expect(await reconcilePass(producer, always)).toBe(false);
    expect(producer.pending.waiting(entry)).toBe(true);
  });
});
