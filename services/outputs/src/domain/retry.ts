/**
 * What a platform's answer means for the destination, and when to try again.
 */

/** `retry`: try the same seq again soon; `failing`: our bug or a bad URL/token, try again slowly. */
export type Outcome = { ok: true } | { ok: false; failing: boolean; message: string };

/**
 * Zoom asks clients to retry every error (400 meeting not started, 408, 5xx, timeouts); 403
 * (missing/invalid parameters) and 405 mean our request or the token is wrong: `failing`. YouTube
 * documents no codes; any 4xx but 408/429 is treated the same way.
 */
export function outcomeOf(status: number): Outcome {
  if (status >= 200 && status < 300) return { ok: true };
  if (status >= 300 && status < 400)
    return { ok: false, failing: true, message: `HTTP ${status}: redirect refused` };
  if (status === 400) return { ok: false, failing: false, message: 'HTTP 400: meeting not started or ended' };
  if (status === 403) return { ok: false, failing: true, message: 'HTTP 403: URL or token refused' };
  if (status === 405) return { ok: false, failing: true, message: 'HTTP 405: method refused' };
  if (status === 408 || status === 429 || status >= 500)
    return { ok: false, failing: false, message: `HTTP ${status}` };
  return { ok: false, failing: true, message: `HTTP ${status}` };
}

/** Exponential backoff from 500 ms, capped at `capMs`, with ±25 % jitter. */
export function backoffMs(attempt: number, capMs = 30_000, random = Math.random): number {
  const base = Math.min(capMs, 500 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.75 + random() * 0.5));
}
