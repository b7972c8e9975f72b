export {
  type CaptionFrame,
  captionFrames,
  type FinalCaption,
  formatSeconds,
  GAP_LABEL,
  GapMarks,
  type GapReason,
  gapFrame,
  gapText,
  hasText,
  TRANSLATION_LABEL,
  windowCaption,
  withWords,
} from './captions.js';
export {
  CAPTURE_BUFFER_SECONDS,
  CaptureSession,
  type CaptureSessionOptions,
  randomId,
} from './capture-session.js';
export { LAG_BOUND_SECONDS, LagWatchdog } from './lag-watchdog.js';
export { levelFromRms, METER_FLOOR_DB, smoothLevel } from './level.js';
export {
  BACKOFF_FIRST_MS,
  BACKOFF_MAX_MS,
  backoffMs,
  RETRY_DELAYS_MS,
  RETRYABLE_STATUSES,
  RequestFailedError,
  type RetryOptions,
  retryAfterMs,
  retryMessage,
  sleepOf,
  withRetries,
} from './retry.js';
export {
  type AudioWindow,
  RollingBuffer,
  type RollingBufferOptions,
  rms,
  SENSITIVITY,
  type Sensitivity,
} from './rolling-buffer.js';
export type { SessionState, SessionStatus } from './session-status.js';
export { applyWordRules, parseReplacements, type Replacement, type WordRules } from './word-rules.js';
