import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { InferenceError } from '../src/index.js';
import { enqueue } from '../src/redis/enqueue.js';
import { expireWaitingJob } from '../src/redis/start-deadline.js';
import { pendingRequest, RESULT, settledWithin, startProducer, type TestProducer } from './producer.js';

let producer: TestProducer;
beforeEach(async () => {
  producer = await startProducer();
});
afterEach(() => producer.close());

describe('the start deadline', () => {
  it('removes a job still waiting, with its audio, and answers queue_timeout', async () => {
    const { entry, outcome } = pendingRequest({ queueTimeoutMs: 200 });
    await enqueue(producer, entry);
    expect(await outcome).toEqual(
      new InferenceError('queue_timeout', 'the job did not start before its queue deadline'),
    );
    expect(((await outcome) as InferenceError).code).toBe('queue_timeout');
    expect(await producer.queue.getJob(entry.jobId)).toBeUndefined();
    expect(await producer.redis.exists(producer.keys.audio(entry.jobId))).toBe(0);
    expect(producer.pending.all()).toEqual([]);
  });

  it('leaves a job that started alone: its outcome comes with its events', async () => {
    let release!: () => void;
    const started = new Promise<void>((resolve) => {
      producer.startWorker(async () => {
        resolve();
        await new Promise<void>((done) => {
          release = done;
        });
        return RESULT;
      });
    });
    const { entry, outcome } = pendingRequest();
    await enqueue(producer, entry);
    await started;
    expect(await expireWaitingJob(producer, entry, entry.jobId)).toBe(false);
    expect(producer.pending.waiting(entry)).toBe(true);
    expect(await settledWithin(outcome, 50)).toBe(false);
    release();
  });

  it('leaves a request already answered or resubmitted alone', async () => {
    const { entry } = pendingRequest();
    await enqueue(producer, entry);
    producer.pending.rekey(entry, 'another-id');
    expect(await expireWaitingJob(producer, entry, entry.jobId)).toBe(false);
    expect(await producer.queue.getJob(entry.jobId)).toBeUndefined();
    // A real resubmission (reconcile.ts) stops the first job's timers; this stand-in for it must
    // too, or its start deadline keeps the test worker alive after the suite.
    producer.pending.settle(entry);
  });

  it('answers even when the audio cannot be deleted any more (it expires on its own)', async () => {
    const { entry, outcome } = pendingRequest();
    await enqueue(producer, entry);
    // The queue's own connection still works; the one that holds the audio is gone.
    producer.redis.disconnect();
    expect(await expireWaitingJob(producer, entry, entry.jobId)).toBe(true);
    expect(await settledWithin(outcome, 50)).toBe(true);
    expect(((await outcome) as InferenceError).code).toBe('queue_timeout');
  });
});
