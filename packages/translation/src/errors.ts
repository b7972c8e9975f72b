/**
 * How a translation can fail. An engine call fails with an EngineError that says whether trying
 * again can help; engine settings a room's writer gave fail with an EngineSettingsError carrying
 * the HTTP status the API should answer. No message ever holds a key or a whole address.
 */

/** Every failure of an engine call. */
export class EngineError extends Error {
  override name = 'EngineError';
  /**
   * `engine_unreachable` (connection refused, DNS, reset), `engine_timeout`, `aborted` (the
   * caller's signal), `engine_redirect`, `unsupported_pair`, `engine_rejected` (400, 404, 413 and
   * other 4xx), `engine_auth` (401/403), `engine_quota` (DeepL 456), `engine_rate_limited` (429),
   * `engine_failed` (5xx), `engine_bad_answer` (a 2xx whose body is not what the API documents).
   */
  readonly code: string;
  readonly status?: number;
  /** 429, 5xx, timeouts, connection errors: the same call may succeed later. */
  readonly retryable: boolean;
  /** From a 429's or 503's Retry-After, when the engine sent one. */
  readonly retryAfterMs?: number;

  constructor(
    message: string,
    fields: { code: string; retryable: boolean; status?: number; retryAfterMs?: number },
  ) {
    super(message);
    this.code = fields.code;
    this.retryable = fields.retryable;
    if (fields.status !== undefined) this.status = fields.status;
    if (fields.retryAfterMs !== undefined) this.retryAfterMs = fields.retryAfterMs;
  }
}

/** Engine settings that cannot be used: `status` 400 (missing or malformed) or 422 (address not allowed). */
export class EngineSettingsError extends Error {
  override name = 'EngineSettingsError';
  constructor(
    /** The setting at fault: `url`, `key`, `source` or `target`. */
    readonly field: 'url' | 'key' | 'source' | 'target',
    message: string,
    readonly status: 400 | 422 = 400,
  ) {
    super(`${field}: ${message}`);
  }
}

/** An engine address the rule refuses (422); the message says why without quoting the address. */
export class EngineAddressError extends EngineSettingsError {
  override name = 'EngineAddressError';
  readonly code = 'engine_address_not_allowed';
  constructor(message: string) {
    super('url', message, 422);
  }
}
