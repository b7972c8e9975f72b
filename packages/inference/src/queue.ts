import type {
  EngineInfo,
  InferenceFailureCode,
  InferenceProgress,
  InferenceRequest,
  InferenceResult,
  WorkerStatus,
} from '@live-captions/protocol';

/** A job that did not produce a result; `code` is stable, `message` is for logs. */
export class InferenceError extends Error {
  constructor(
    readonly code: InferenceFailureCode,
    message: string,
  ) {
    super(message);
    this.name = 'InferenceError';
  }
}

export interface SubmitOptions {
  /** Wall clock (ms since epoch) after which the job must not start; it then fails as `queue_timeout`. */
  startDeadline: number;
  /**
   * Offline decodes: called with each batch of segments as it is decoded (in-process: as the
   * engine reports it; Redis: through BullMQ job progress events).
   */
  onProgress?: (progress: InferenceProgress) => void;
}

/** Figures of the workers behind a queue, for the gateway's health report. */
export interface QueueStatus {
  /** Ready workers (empty before the first one has warmed up). */
  workers: WorkerStatus[];
  /** Jobs waiting to start. */
  pending: number;
}

/**
 * What the speech gateway sees of inference, whichever backend runs it: the in-process worker
 * (embedded default) or BullMQ workers on any number of hosts (REDIS_URL).
 */
export interface InferenceQueue {
  /** Resolves once the backend can accept jobs (connections open; the in-process engine warmed up). */
  start(): Promise<void>;
  /**
   * Queues one decode. `audio` is 16 kHz mono float32. Resolves with the result or rejects with
   * an {@link InferenceError}. Jobs start in submission order (FIFO).
   */
  submit(request: InferenceRequest, audio: Float32Array, options: SubmitOptions): Promise<InferenceResult>;
  /** Live figures; `workers` is empty until a worker is ready. */
  status(): Promise<QueueStatus>;
  /** The engine description of the first ready worker, or undefined while none is ready. */
  engine(): Promise<EngineInfo | undefined>;
  /**
   * Stops taking jobs and releases connections. Jobs on Redis workers finish there; in-process,
   * decodes still running are aborted (the gateway closes the queue after its shutdown grace).
   */
  close(): Promise<void>;
}
