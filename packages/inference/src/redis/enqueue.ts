import { encodeFloat32 } from '@live-captions/audio';
import type { InferenceJob } from '@live-captions/protocol';
import { fairnessGroup } from '../domain/fairness.js';
import type { PendingRequest } from './pending.js';
import type { Producer } from './producer.js';
import { armStartDeadline } from './start-deadline.js';

/** Audio outlives its request's deadline by this much, so a (re)started job never finds it missing. */
export const AUDIO_GRACE_MS = 30_000;

/** BullMQ's largest priority (2^21). */
const MAX_PRIORITY = 2_097_152;

/**
 * Puts a request into Redis under `entry.jobId`: its audio first (a binary value, which a job's
 * JSON would carry at several times the size), then the job that names it, so that a worker that
 * takes the job always finds the audio. The entry is pending, with its start deadline, before the
 * first write: the job's events, or a reconciliation after a drop between the writes, find it.
 * Rejects with the write's error; the caller decides (keep the request, or answer it).
 */
export async function enqueue(producer: Producer, entry: PendingRequest): Promise<void> {
  const { redis, queue, keys, pending } = producer;
  const startDeadline = Math.min(Date.now() + entry.queueTimeoutMs, entry.deadline);
  const data: InferenceJob = {
    ...entry.request,
    enqueuedAt: Date.now(),
    startDeadline,
    samples: entry.audio.length,
  };
  // Fair across rooms on a shared queue: a job's priority is how many of its room's requests this
  // gateway already has in flight, plus one. BullMQ takes lower numbers first and keeps arrival
  // order within one, so every room's first window goes before any room's second (one FIFO line
  // would let a room with a backlog, or with several streams, hold the others back).
  const group = fairnessGroup(entry.request);
  const priority = Math.min(
    MAX_PRIORITY,
    1 + pending.all().filter((other) => other !== entry && fairnessGroup(other.request) === group).length,
  );
  pending.add(entry);
  armStartDeadline(producer, entry, startDeadline);
  await redis.set(
    keys.audio(entry.jobId),
    Buffer.from(encodeFloat32(entry.audio)),
    'PX',
    Math.max(1, entry.deadline - Date.now()) + AUDIO_GRACE_MS,
  );
  await queue.add('decode', data, {
    jobId: entry.jobId,
    priority,
    // A worker's failure is final (no retry); a worker's death is retried once through the
    // stalled-job check (see the worker's maxStalledCount).
    attempts: 1,
    removeOnComplete: { age: 60 },
    removeOnFail: { age: 60 },
  });
}
