/**
 * Inference jobs: what the speech gateway asks of a worker and what comes back. The same shapes
 * travel through BullMQ (Redis) and through the in-process queue.
 */

export type TaskMode = 'transcribe' | 'translate' | 'both';

/** Options of one decode request, already validated by the gateway. */
export interface InferenceRequest {
  mode: TaskMode;
  /** A Whisper language code, or `auto` for detection. */
  language: string;
  /** `true` for a rolling live window (word cut, context handling). */
  window: boolean;
  /** `true` commits the whole window; `false` keeps the last second unfinished. */
  final: boolean;
  /** Seconds of already committed audio at the start of the window (0-1). */
  contextSeconds: number;
  /** Empty string when the client sent none. */
  requestId: string;
  streamId: string;
  /** Correlates log lines of the HTTP request and of the job. */
  correlationId: string;
}

/** The job as it is queued: the request plus scheduling data. Audio travels separately, as binary. */
export interface InferenceJob extends InferenceRequest {
  /** Wall clock (ms since epoch) when the job entered the queue. */
  enqueuedAt: number;
  /** Wall clock (ms since epoch) after which the job must fail as `queue_timeout` without decoding. */
  startDeadline: number;
  /** Number of float32 samples (16 kHz mono) of the job's audio. */
  samples: number;
}

/** What a decode produced, in the contract's units (seconds, 3 decimals). */
export interface InferenceResult {
  text: string;
  transcript: string;
  translation: string;
  /** Detected or given source language; null for `auto` without speech. */
  language: string | null;
  /** Language of `text`. */
  outputLanguage: string | null;
  /** `en` for translate/both, else null. */
  translationLanguage: string | null;
  mode: TaskMode;
  audioSeconds: number;
  committedSeconds: number;
  queueSeconds: number;
  inferenceSeconds: number;
}

/**
 * Stable failure codes carried from the worker to the gateway: `queue_timeout` (the job did not
 * start before its deadline; never decoded), `unsupported` (the loaded model cannot serve it:
 * English-only model, unknown language), `inference_failed` (the decoder failed or the watchdog
 * stopped it), `unavailable` (the worker is shutting down and did not take the job).
 */
export const INFERENCE_FAILURE_CODES = [
  'queue_timeout',
  'unsupported',
  'inference_failed',
  'unavailable',
] as const;
export type InferenceFailureCode = (typeof INFERENCE_FAILURE_CODES)[number];

/** Name of the BullMQ queue unless configured otherwise. */
export const DEFAULT_QUEUE_NAME = 'captions-inference';
