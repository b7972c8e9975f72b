import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { InferenceError } from '../src/index.js';
import { armRequestDeadline } from '../src/redis/request-deadline.js';
import { pendingRequest, settledWithin, startProducer, type TestProducer } from './producer.js';

let producer: TestProducer;
beforeEach(async () => {
  producer = await startProducer();
});
afterEach(() => producer.close());

const UNAVAILABLE = new InferenceError('unavailable', 'no result before the request deadline');

describe('the request deadline', () => {
  it('answers unavailable when no result came, and forgets the request', async () => {
    const { entry, outcome } = pendingRequest({ deadlineMs: 300 });
    armRequestDeadline(producer, entry);
    producer.pending.add(entry);
    const answered = await outcome;
    expect(answered).toEqual(UNAVAILABLE);
    expect((answered as InferenceError).code).toBe('unavailable');
    expect(producer.pending.all()).toEqual([]);
    expect(entry.timers).toEqual([]);
  });

  it('answers while Redis is away: it needs nothing from Redis', async () => {
    const { entry, outcome } = pendingRequest({ deadlineMs: 300 });
    armRequestDeadline(producer, entry);
    producer.pending.add(entry);
    await producer.queue.disconnect();
    producer.redis.disconnect();
    expect(((await outcome) as InferenceError).code).toBe('unavailable');
  });

  it('stays silent for a request already answered', async () => {
    const { entry, outcome } = pendingRequest({ deadlineMs: 100 });
    armRequestDeadline(producer, entry);
    producer.pending.add(entry);
    producer.pending.settle(entry);
    expect(await settledWithin(outcome, 300)).toBe(false);
  });
});
