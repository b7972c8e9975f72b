/**
 * What every route shares: the service access token (the gateway's rule: Bearer
 * `CAPTION_API_KEY` on every API route when it is set, compared in constant time) and the
 * `{error:{message, code}}` body.
 */
import { bearerChecker } from '@live-captions/http';
import type { ErrorRequestHandler, RequestHandler } from 'express';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function requireToken(apiKey: string | undefined): RequestHandler {
  if (apiKey === undefined) return (_req, _res, next) => next();
  const check = bearerChecker(apiKey);
  return (req, res, next) => {
    if (check(req.headers.authorization)) return next();
    res.setHeader('WWW-Authenticate', 'Bearer');
    next(new HttpError(401, 'unauthorized', 'Missing or wrong service access token'));
  };
}

export const errorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  let http: HttpError;
  if (error instanceof HttpError) http = error;
  else if ((error as { type?: string }).type === 'entity.too.large')
    http = new HttpError(413, 'payload_too_large', 'Body over 64 KiB');
  else if ((error as { type?: string }).type === 'entity.parse.failed')
    http = new HttpError(400, 'invalid_request', 'body: not valid JSON');
  else {
    // The code only: a driver's message may quote a statement, and statements hold secrets.
    res.locals.logger?.error({ code: (error as { code?: string }).code ?? 'unknown' }, 'request failed');
    http = new HttpError(503, 'unavailable', 'Storage unavailable, try again');
  }
  res.status(http.status).json({ error: { message: http.message, code: http.code } });
};
