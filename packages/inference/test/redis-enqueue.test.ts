import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { decodeFloat32 } from '@live-captions/audio';
import { AUDIO_GRACE_MS, enqueue } from '../src/redis/enqueue.js';
import { pendingRequest, startProducer, type TestProducer } from './producer.js';

let producer: TestProducer;
beforeEach(async () => {
  producer = await startProducer();
});
afterEach(() => producer.close());

describe('enqueue', () => {
  it('puts the audio, then the job that names it, and keeps the request pending with its start deadline', async () => {
    const { entry } = pendingRequest({ queueTimeoutMs: 5_000, deadlineMs: 20_000 });
    const before = Date.now();
    await enqueue(producer, entry);

    const audio = await producer.redis.getBuffer(producer.keys.audio(entry.jobId));
    expect(decodeFloat32(audio!)).toEqual(entry.audio);
    // The audio outlives the request's deadline by the grace, so a retried job still finds it.
    const ttl = await producer.redis.pttl(producer.keys.audio(entry.jobId));
    expect(ttl).toBeGreaterThan(20_000 + AUDIO_GRACE_MS - 2_000);
    expect(ttl).toBeLessThanOrEqual(20_000 + AUDIO_GRACE_MS);

    const job = await producer.queue.getJob(entry.jobId);
    expect(await job?.getState()).toBe('prioritized');
    // The request's room (or stream) had nothing else in flight: first in its turn.
    expect(job?.opts.priority).toBe(1);
    expect(job?.data).toMatchObject({ ...entry.request, samples: entry.audio.length });
    expect(job?.data.startDeadline).toBeGreaterThanOrEqual(before + 5_000);
    expect(job?.data.startDeadline).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(job?.opts).toMatchObject({ attempts: 1 });

    expect(producer.pending.get(entry.jobId)).toBe(entry);
    expect(entry.timers).toHaveLength(1);
  });

  it('never starts a job later than the request deadline allows', async () => {
    const { entry } = pendingRequest({ queueTimeoutMs: 60_000, deadlineMs: 3_000 });
    await enqueue(producer, entry);
    const job = await producer.queue.getJob(entry.jobId);
    expect(job?.data.startDeadline).toBe(entry.deadline);
  });

  it('adds no job when the audio could not be written: a worker never takes a job without its audio', async () => {
    const { entry } = pendingRequest();
    producer.redis.disconnect();
    await expect(enqueue(producer, entry)).rejects.toThrow();
    expect(await producer.queue.getJob(entry.jobId)).toBeUndefined();
    // Still pending: the caller keeps it for a reconciliation, or answers it.
    expect(producer.pending.waiting(entry)).toBe(true);
  });
});
