import { InferenceError } from '../queue.js';
import type { PendingRequest } from './pending.js';
import type { Producer } from './producer.js';

/**
 * At its start deadline a job still waiting is removed from Redis with its audio, and its request
 * is answered `queue_timeout` (the gateway's 429): removed first, so that a job can never run
 * after its submitter was told it would not.
 */
const QUEUED = new Set(['waiting', 'prioritized']);

export function armStartDeadline(producer: Producer, entry: PendingRequest, startDeadline: number): void {
  const jobId = entry.jobId;
  const timer = setTimeout(
    () => void expireWaitingJob(producer, entry, jobId),
    Math.max(0, startDeadline - Date.now()),
  );
  entry.timers.push(timer);
}

/**
 * The check at the deadline. Left alone: a request already answered or resubmitted, a job that
 * started (its outcome comes with its events), a job that started once and waits again (its
 * worker died: it is being retried), and any fault of Redis (a reconciliation or the request
 * deadline answers then). True when it removed the job and answered.
 */
export async function expireWaitingJob(
  { queue, pending, redis, keys }: Producer,
  entry: PendingRequest,
  jobId: string,
): Promise<boolean> {
  if (!pending.waiting(entry)) return false;
  try {
    const job = await queue.getJob(jobId);
    // Waiting is BullMQ's `waiting`, or `prioritized` (every job has a priority: fair rooms).
    if (job?.attemptsStarted !== 0 || !QUEUED.has(await job.getState())) return false;
    // Throws when a worker took it at the last moment (locked): then it runs, and is answered.
    await job.remove();
    pending.settle(entry);
    entry.reject(new InferenceError('queue_timeout', 'the job did not start before its queue deadline'));
    // After the answer: should Redis fail now, the audio still expires with its TTL.
    await redis.del(keys.audio(jobId)).catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}
