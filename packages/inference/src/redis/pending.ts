import type { InferenceProgress, InferenceRequest, InferenceResult } from '@live-captions/protocol';
import type { InferenceError } from '../queue.js';

/**
 * A request the gateway has not answered yet. It keeps its audio, so a job that Redis lost (a
 * restart without persistence) is submitted again under a new id.
 */
export interface PendingRequest {
  jobId: string;
  request: InferenceRequest;
  audio: Float32Array;
  /** How long a queued job may wait to start (the submitter's startDeadline - now). */
  queueTimeoutMs: number;
  /** Gateway-side deadline: whatever Redis does, the request is answered by then. */
  deadline: number;
  resolve: (result: InferenceResult) => void;
  reject: (error: InferenceError) => void;
  timers: NodeJS.Timeout[];
  onProgress: ((progress: InferenceProgress) => void) | undefined;
  /** Segments relayed so far: a retried job reports its first segments again. */
  relayed: number;
}

/** The gateway's unanswered requests, by their current job id. */
export class PendingRequests {
  readonly #byJob = new Map<string, PendingRequest>();

  get(jobId: string): PendingRequest | undefined {
    return this.#byJob.get(jobId);
  }

  /** Whether `entry` is still waiting under its current job id (not answered, not resubmitted). */
  waiting(entry: PendingRequest): boolean {
    return this.#byJob.get(entry.jobId) === entry;
  }

  add(entry: PendingRequest): void {
    this.#byJob.set(entry.jobId, entry);
  }

  /** A snapshot: settling while iterating is safe. */
  all(): PendingRequest[] {
    return [...this.#byJob.values()];
  }

  /** Stops the entry's timers and forgets it; the caller then resolves or rejects it. */
  settle(entry: PendingRequest): void {
    for (const timer of entry.timers) clearTimeout(timer);
    entry.timers = [];
    this.#byJob.delete(entry.jobId);
  }

  /** Forgets the entry under its lost job id; it is added again once enqueued under `jobId`. */
  rekey(entry: PendingRequest, jobId: string): void {
    this.#byJob.delete(entry.jobId);
    entry.jobId = jobId;
  }
}

/**
 * The segments of a progress report the request has not seen yet: a job retried on another
 * worker reports its first segments again.
 */
export function freshProgress(
  entry: PendingRequest,
  progress: InferenceProgress,
): InferenceProgress | undefined {
  const fresh = progress.segments.slice(Math.max(0, entry.relayed - progress.offset));
  if (fresh.length === 0) return undefined;
  entry.relayed = progress.offset + progress.segments.length;
  return { offset: entry.relayed - fresh.length, segments: fresh };
}
