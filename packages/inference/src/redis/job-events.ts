import { inferenceProgressSchema, inferenceResultSchema } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { QueueEvents } from 'bullmq';
import { InferenceError } from '../queue.js';
import { decodeFailure } from './failure.js';
import { freshProgress, type PendingRequests } from './pending.js';

/**
 * The gateway's reading of the queue's event stream: a completed or failed job answers its pending
 * request, progress reaches the request's listener without the segments it already had, and a
 * stalled job (its worker died; another decodes it again) is logged. Events of jobs that no
 * request waits for are ignored. Results and progress are checked against the protocol's schemas:
 * a worker of another version fails the request instead of answering it wrongly.
 */
export function answerFromJobEvents(events: QueueEvents, pending: PendingRequests, logger?: Logger): void {
  events.on('completed', ({ jobId, returnvalue }) => {
    const entry = pending.get(jobId);
    if (!entry) return;
    pending.settle(entry);
    const result = inferenceResultSchema.safeParse(returnvalue);
    if (result.success) {
      entry.resolve(result.data);
      return;
    }
    logger?.error(
      { jobId, correlationId: entry.request.correlationId, field: result.error.issues[0]?.path.join('.') },
      'job result malformed: the worker speaks another protocol',
    );
    entry.reject(new InferenceError('inference_failed', 'the worker answered with a malformed result'));
  });
  events.on('failed', ({ jobId, failedReason }) => {
    const entry = pending.get(jobId);
    if (!entry) return;
    pending.settle(entry);
    const failure = decodeFailure(failedReason);
    if (/stalled more than allowable limit/.test(failedReason)) {
      logger?.error(
        { jobId, correlationId: entry.request.correlationId },
        'job failed: it stopped two workers',
      );
    }
    entry.reject(failure);
  });
  events.on('progress', ({ jobId, data }) => {
    const entry = pending.get(jobId);
    if (!entry?.onProgress) return;
    // Progress is best effort: a malformed one is dropped, the final result carries every segment.
    const progress = inferenceProgressSchema.safeParse(data);
    if (!progress.success) return;
    const fresh = freshProgress(entry, progress.data);
    if (fresh) entry.onProgress(fresh);
  });
  events.on('stalled', ({ jobId }) => {
    const entry = pending.get(jobId);
    if (entry)
      logger?.warn({ jobId, correlationId: entry.request.correlationId }, 'job retried: its worker stopped');
  });
}
