/** An error answered as WordPress does: `{code, message, data: {status, params?, ...}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toJSON() {
    return { code: this.code, message: this.message, data: { status: this.status, ...this.extra } };
  }
}

/**
 * 400 `rest_invalid_param` naming each bad parameter and why: `data.params` (name -> message)
 * and, as WordPress 5.5+, `data.details` (name -> the error of that parameter).
 */
export function invalidParams(params: Record<string, string>): ApiError {
  const details = Object.fromEntries(
    Object.entries(params).map(([name, message]) => [
      name,
      { code: 'rest_invalid_param', message, data: null },
    ]),
  );
  return new ApiError(400, 'rest_invalid_param', `Invalid parameter(s): ${Object.keys(params).join(', ')}`, {
    params,
    details,
  });
}

export const invalidParam = (name: string, why: string) => invalidParams({ [name]: why });

export function missingParams(names: string[]): ApiError {
  return new ApiError(400, 'rest_missing_callback_param', `Missing parameter(s): ${names.join(', ')}`, {
    params: names,
  });
}

export const noRoute = () =>
  new ApiError(404, 'rest_no_route', 'No route was found matching the URL and request method.');

/** Seconds a client should wait before retrying while the database is unreachable. */
export const RETRY_AFTER_S = 5;

/**
 * 503 while PostgreSQL is unreachable or a statement ran past its time limit: the request may
 * succeed later (sent with `Retry-After`); the driver's own message never reaches the client.
 */
export const unavailable = () =>
  new ApiError(503, 'rest_service_unavailable', 'The calendar is temporarily unavailable; retry shortly.');
