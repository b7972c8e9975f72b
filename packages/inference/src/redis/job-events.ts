import type { InferenceProgress, InferenceResult } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { QueueEvents } from 'bullmq';
import { decodeFailure } from './failure.js';
import { freshProgress, type PendingRequests } from './pending.js';

/**
 * The gateway's reading of the queue's event stream: a completed or failed job answers its pending
 * request, progress reaches the request's listener without the segments it already had, and a
 * stalled job (its worker died; another decodes it again) is logged. Events of jobs that no
 * request waits for are ignored.
 */
export function answerFromJobEvents(events: QueueEvents, pending: PendingRequests, logger?: Logger): void {
  events.on('completed', ({ jobId, returnvalue }) => {
    const entry = pending.get(jobId);
    if (!entry) return;
    pending.settle(entry);
    entry.resolve(returnvalue as unknown as InferenceResult);
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
    const progress = data as unknown as InferenceProgress;
    if (!entry?.onProgress || !Array.isArray(progress?.segments)) return;
    const fresh = freshProgress(entry, progress);
    if (fresh) entry.onProgress(fresh);
  });
  events.on('stalled', ({ jobId }) => {
    const entry = pending.get(jobId);
    if (entry)
      logger?.warn({ jobId, correlationId: entry.request.correlationId }, 'job retried: its worker stopped');
  });
}
