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
  /**
   * The caption room the stream captions (the client's `X-Caption-Room`): decode slots go round
   * robin across rooms, so one room's backlog never starves another. Absent: the stream is its
   * own group.
   */
  room?: string;
  /** Correlates log lines of the HTTP request and of the job. */
  correlationId: string;
  /**
   * whisper.cpp's initial prompt (names and terms to expect; its last 224 tokens count), on every
   * path: `/v1`'s `prompt` field, the native `prompt` parameter, a realtime session's prompt.
   * Absent or "": none.
   */
  prompt?: string;
  /**
   * The text the stream committed just before this audio (a native stream's last window, a
   * realtime session's last turn): a segment saying it again is a loop and is dropped. Absent:
   * none known.
   */
  previousText?: string;
  /**
   * Present for an offline `/v1` decode (not a live window): the result then carries timed
   * segments, and progress reports them as they are decoded.
   */
  offline?: OfflineDecodeOptions;
}

/** `/v1` options that live windows never use. */
export interface OfflineDecodeOptions {
  /** Start temperature (0-1); whisper.cpp's fallback raises it where a segment fails its checks. */
  temperature: number;
}

/** A text token with its time (seconds from the start of the clip) and log probability. */
export interface ResultToken {
  id: number;
  text: string;
  start: number;
  end: number;
  logprob: number;
}

/** A decoded segment of an offline decode, times in seconds from the start of the clip. */
export interface ResultSegment {
  start: number;
  end: number;
  text: string;
  tokens: ResultToken[];
  /** The start temperature of the decode (whisper.cpp does not report a fallback's). */
  temperature: number;
  noSpeechProbability: number;
}

/** Progress of an offline decode: the segments decoded since the last report. */
export interface InferenceProgress {
  /** Index of the first of `segments` among all segments of the decode (a retried job repeats some). */
  offset: number;
  segments: ResultSegment[];
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
  /** Offline decodes only: every segment, in order. */
  segments?: ResultSegment[];
  /** What the non-speech, hallucination and loop guards removed (absent: nothing). */
  guards?: GuardCounts;
}

/** What the guards removed from one request's audio or text. */
export interface GuardCounts {
  /** Seconds of audio without speech (energy gate or VAD), never decoded or answered like silence. */
  nonSpeechSeconds: number;
  /** Known non-speech phrases ("Thank you for watching.") dropped. */
  phrasesDropped: number;
  /** Repetition loops cut back to their first occurrence, or dropped. */
  loopsCut: number;
  /** Segments dropped on whisper.cpp's own signals (no-speech and log-probability). */
  unsureDropped: number;
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
