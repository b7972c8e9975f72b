/**
 * Sending one request with the capture page's retry rules (pure: fetch, sleep and the random
 * jitter are injected). Network errors and 408/429/502/503/504 are retried: by default up to three
 * times after 0.5, 1 and 2 s; with `forever` (the capture's windows: an event must carry on through
 * a gateway outage) until they succeed or `giveUp()` says so, after an exponential backoff with
 * jitter (0.5 s doubling to 10 s, +/- 20 %). The server's Retry-After wins when it is longer. The
 * caller sends identical bytes with the same X-Request-ID on every attempt, so a retry of a request
 * that did run gets the cached answer.
 */

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);
export const RETRY_DELAYS_MS: readonly number[] = [500, 1000, 2000];
export const BACKOFF_FIRST_MS = 500;
export const BACKOFF_MAX_MS = 10_000;
/** Jitter: each backoff is scaled by a factor in [1 - JITTER, 1 + JITTER]. */
const JITTER = 0.2;
/** A Retry-After beyond this is not waited for automatically. */
const MAX_RETRY_AFTER_MS = 30_000;

/** The request failed for good (retries exhausted, or an answer that retrying cannot change). */
export class RequestFailedError extends Error {
  override name = 'RequestFailedError';
  constructor(
    message: string,
    /** HTTP status, or undefined for a network error. */
    readonly status: number | undefined,
    readonly attempts: number,
    /** Whether retrying later may help (the operator's Retry button). */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface RetryOptions {
  delaysMs?: readonly number[];
  sleep?: (ms: number) => Promise<void>;
  /** Retry retryable failures until success (backoff with jitter) instead of `delaysMs`. */
  forever?: boolean;
  /** With `forever`: checked before each retry; true stops with the last failure. */
  giveUp?: () => boolean;
  /** Uniform in [0, 1), for the jitter (tests inject it). */
  random?: () => number;
  /** Told before each retry (status line). */
  onRetry?: (event: {
    attempt: number;
    delayMs: number;
    status: number | undefined;
    message: string;
  }) => void;
}

/** The status line's words while the gateway is away (both transports). */
export const retryMessage = (why: string, delayMs: number) =>
  `Speech service not answering (${why}); retrying in ${(delayMs / 1000).toFixed(1)} s`;

/** The real clock's wait, unless the options inject one (tests do). */
export const sleepOf = (options?: Pick<RetryOptions, 'sleep'>) =>
  options?.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));

/** The `attempt`th backoff (1-based) with jitter, or the server's Retry-After when longer (capped). */
export function backoffMs(attempt: number, retryAfter?: number, random: () => number = Math.random): number {
  const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(base * (1 - JITTER + 2 * JITTER * random()));
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(jittered, retryAfter ?? 0));
}

/** Seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The `detail` of a JSON error body, else the status text. */
async function errorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { detail?: unknown };
    if (typeof body.detail === 'string' && body.detail) return body.detail;
  } catch {
    // Not JSON: fall back to the status.
  }
  return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
}

/** Runs `attempt` until it answers 2xx; returns that response or throws RequestFailedError. */
export async function withRetries(
  attempt: () => Promise<Response>,
  options: RetryOptions = {},
): Promise<Response> {
  const delays = options.delaysMs ?? RETRY_DELAYS_MS;
  const sleep = sleepOf(options);
  for (let attemptNo = 1; ; attemptNo++) {
    let status: number | undefined;
    let message: string;
    let waitMs: number | undefined;
    try {
      const response = await attempt();
      if (response.ok) return response;
      status = response.status;
      message = await errorMessage(response);
      waitMs = retryAfterMs(response.headers.get('Retry-After'));
      if (!RETRYABLE_STATUSES.has(status)) {
        // 500 (the decode failed) may work later; 4xx other than the list will not.
        throw new RequestFailedError(message, status, attemptNo, status >= 500);
      }
    } catch (error) {
      if (error instanceof RequestFailedError) throw error;
      status = undefined;
      message = error instanceof Error && error.message ? `Network error: ${error.message}` : 'Network error';
    }
    let delayMs: number;
    if (options.forever) {
      if (options.giveUp?.()) throw new RequestFailedError(message, status, attemptNo, true);
      delayMs = backoffMs(attemptNo, waitMs, options.random);
    } else {
      const delay = delays[attemptNo - 1];
      if (delay === undefined) throw new RequestFailedError(message, status, attemptNo, true);
      delayMs = Math.min(MAX_RETRY_AFTER_MS, Math.max(delay, waitMs ?? 0));
    }
    options.onRetry?.({ attempt: attemptNo, delayMs, status, message });
    await sleep(delayMs);
  }
}
