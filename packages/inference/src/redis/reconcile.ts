import { randomUUID } from 'node:crypto';
import { enqueue } from './enqueue.js';
import { answerWithFailure, answerWithResult } from './job-events.js';
import type { PendingRequest } from './pending.js';
import type { Producer } from './producer.js';
import { armRequestDeadline } from './request-deadline.js';

/**
 * One pass over the pending requests after Redis came back. A job Redis still has answers its
 * request from its stored outcome when it ended while the gateway was away from the event
 * stream (checked as an event's would be), else through its events later; a job Redis lost (a restart without persistence) is
 * submitted again under a new id, from the audio the gateway kept. Stops as soon as `goOn()` is
 * false (closed, or the connection dropped again). False when some request could not be checked:
 * the caller runs another pass (see `serialPasses`).
 */
export async function reconcilePass(producer: Producer, goOn: () => boolean): Promise<boolean> {
  let complete = true;
  for (const entry of producer.pending.all()) {
    if (!goOn()) return false;
    try {
      const job = await producer.queue.getJob(entry.jobId);
      if (!job) {
        await resubmit(producer, entry);
        continue;
      }
      // Another state (waiting, prioritized, active, delayed): its events will come.
      const state = await job.getState();
      if (state === 'completed') answerWithResult(producer.pending, entry, job.returnvalue, producer.logger);
      else if (state === 'failed')
        answerWithFailure(producer.pending, entry, job.failedReason, producer.logger);
    } catch {
      complete = false;
    }
  }
  return complete;
}

/**
 * The lost job's request under a new id: a fresh id, so that a late event of the lost job (or
 * the job itself, should Redis still bring it back) never answers it twice. The request keeps
 * its deadline; its start deadline is armed again by `enqueue`.
 */
async function resubmit(producer: Producer, entry: PendingRequest): Promise<void> {
  const lost = entry.jobId;
  for (const timer of entry.timers) clearTimeout(timer);
  entry.timers = [];
  armRequestDeadline(producer, entry);
  producer.pending.rekey(entry, randomUUID());
  producer.logger?.warn(
    { jobId: entry.jobId, lostJobId: lost, correlationId: entry.request.correlationId },
    'job resubmitted: Redis lost it',
  );
  await enqueue(producer, entry);
}
