import { inferenceProgressSchema, inferenceResultSchema } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { QueueEvents } from 'bullmq';
import { InferenceError } from '../queue.js';
import { decodeFailure } from './failure.js';
import { freshProgress, type PendingRequest, type PendingRequests } from './pending.js';

/**
 * The gateway's reading of the queue's event stream: a completed or failed job answers its pending
 * request, progress reaches the request's listener without the segments it already had, and a
 * stalled job (its worker died; another decodes it again) is logged. Events of jobs that no
 * request waits for are ignored. Progress is checked against the protocol's schema like results.
 */
export function answerFromJobEvents(events: QueueEvents, pending: PendingRequests, logger?: Logger): void {
  events.on('completed', ({ jobId, returnvalue }) => {
    const entry = pending.get(jobId);
    if (entry) answerWithResult(pending, entry, returnvalue, logger);
  });
  events.on('failed', ({ jobId, failedReason }) => {
    const entry = pending.get(jobId);
    if (entry) answerWithFailure(pending, entry, failedReason, logger);
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

/**
 * Answers a request with its job's result (from the event, or stored in Redis), checked against
 * the protocol's schema: a worker of another version fails the request instead of answering it
 * wrongly.
 */
export function answerWithResult(
  pending: PendingRequests,
  entry: PendingRequest,
  value: unknown,
  logger?: Logger,
): void {
  pending.settle(entry);
  const result = inferenceResultSchema.safeParse(value);
  if (result.success) {
    entry.resolve(result.data);
    return;
  }
  logger?.error(
    {
      jobId: entry.jobId,
      correlationId: entry.request.correlationId,
      field: result.error.issues[0]?.path.join('.'),
    },
    'job result malformed: the worker speaks another protocol',
  );
  entry.reject(new InferenceError('inference_failed', 'the worker answered with a malformed result'));
}

/** Answers a request with its job's failure: the code travels as the reason's prefix (failure.ts). */
export function answerWithFailure(
  pending: PendingRequests,
  entry: PendingRequest,
  reason: string | undefined,
  logger?: Logger,
): void {
  pending.settle(entry);
  if (reason && /stalled more than allowable limit/.test(reason)) {
    logger?.error(
      { jobId: entry.jobId, correlationId: entry.request.correlationId },
      'job failed: it stopped two workers',
    );
  }
  entry.reject(decodeFailure(reason));
}
