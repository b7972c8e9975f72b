/**
 * What a translation engine's failure means for a track: a retryable one (5xx, 429, timeout,
 * unreachable) -> `retry`, with backoff; a refusal of the requests (key, quota, pair, address,
 * settings) -> `refused`, retried slowly until the operator acts; a refusal of this text (400, 413,
 * a broken answer) -> `skip`: the caption is skipped, counted, and the track goes on.
 */
import { EngineError, EngineSettingsError } from '@live-captions/translation';

export interface EngineFailure {
  action: 'retry' | 'refused' | 'skip';
  /** The metric's and the log's code. */
  code: string;
  /** What the track's last error says. */
  message: string;
  /** The engine asked for this wait (a 429's Retry-After). */
  retryAfterMs?: number;
}

/** Engine errors that will not go away by themselves: the operator must act. */
const REFUSED = new Set(['engine_auth', 'engine_quota', 'unsupported_pair', 'engine_redirect']);

export function engineFailure(error: unknown): EngineFailure {
  if (error instanceof EngineSettingsError)
    return { action: 'refused', code: 'engine_settings', message: error.message };
  if (!(error instanceof EngineError))
    return { action: 'skip', code: 'engine_bad_answer', message: 'the engine failed unexpectedly' };
  const { code, message } = error;
  if (error.retryable)
    return {
      action: 'retry',
      code,
      message,
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    };
  return { action: REFUSED.has(code) ? 'refused' : 'skip', code, message };
}
