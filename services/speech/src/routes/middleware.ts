/**
 * Cross-cutting HTTP concerns, one factory each, assembled in order by `app.ts`.
 */

import { securityHeaders as sharedSecurityHeaders } from '@live-captions/http';
import type { Logger } from '@live-captions/runtime';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { bearerChecker, originAllowed } from '../domain/access.js';
import { HttpError, Messages } from '../domain/errors.js';
import { ClientGone } from './body.js';

const CORS_METHODS = 'GET, POST, DELETE';
const CORS_HEADERS =
  'Authorization, Content-Type, X-Caption-Local, X-Stream-ID, X-Request-ID, X-Caption-Room, X-Caption-Backlog, X-Caption-Skipped';

/** `{"detail"}` everywhere; under `/v1` also the OpenAI `error` object the official SDKs read. */
export function sendError(req: Request, res: Response, error: HttpError): void {
  if (res.headersSent) {
    // A `/v1` stream that already sent text ends with an error event the SDKs raise.
    if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream') && !res.writableEnded) {
      const detail = { message: error.message, type: error.type, param: error.param, code: error.code };
      res.end(`data: ${JSON.stringify({ type: 'error', error: detail })}\n\n`);
      return;
    }
    res.destroy();
    return;
  }
  if (error.retryAfter !== undefined) res.setHeader('Retry-After', String(error.retryAfter));
  if (error.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
  // The OpenAI SDK retries 409 unless told otherwise; a conflict never resolves by retrying.
  if (error.status === 409) res.setHeader('x-should-retry', 'false');
  const body: Record<string, unknown> = { detail: error.message };
  if (error.reason !== undefined) body.reason = error.reason;
  if (req.path.startsWith('/v1/') || req.path === '/v1') {
    body.error = { message: error.message, type: error.type, param: error.param, code: error.code };
  }
  res.status(error.status).json(body);
}

/** The service's own origin: `scheme://Host` (scheme from X-Forwarded-Proto only behind a trusted proxy). */
export const ownOrigin = (req: Request) => `${req.protocol}://${(req.headers.host ?? '').toLowerCase()}`;

/** The stack's security headers plus `Cache-Control: no-store` (API answers must not be cached). */
export function securityHeaders(connectSources: string[]): RequestHandler[] {
  return [
    sharedSecurityHeaders(connectSources),
    function noStore(_req, res, next) {
      res.setHeader('Cache-Control', 'no-store');
      next();
    },
  ];
}

/** During graceful shutdown every new request gets 503. */
export function shutdownGuard(state: { closing: boolean }): RequestHandler {
  return function refuseWhileClosing(req, res, next) {
    if (!state.closing) return next();
    res.setHeader('Connection', 'close');
    sendError(req, res, new HttpError(503, Messages.restarting, { retryAfter: 1 }));
  };
}

/** At most `limit` requests in flight; beyond it 503 with Retry-After, the body left unread. */
export function concurrencyLimit(limit: number): RequestHandler {
  let inFlight = 0;
  return function limitConcurrency(req, res, next) {
    if (inFlight >= limit) {
      sendError(req, res, new HttpError(503, Messages.httpLimit, { retryAfter: 1 }));
      return;
    }
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
    });
    next();
  };
}

/**
 * CORS only for CAPTION_ALLOWED_ORIGINS; preflights need no token, and a preflight from a
 * foreign origin gets 403 without CORS headers.
 */
export function cors(allowed: ReadonlySet<string>): RequestHandler {
  return function corsHeaders(req, res, next) {
    const origin = req.headers.origin;
    const listed = origin !== undefined && allowed.has(origin);
    if (allowed.size > 0) res.vary('Origin');
    if (listed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', 'Retry-After');
    }
    if (req.method !== 'OPTIONS') return next();
    if (!originAllowed(origin, ownOrigin(req), allowed)) {
      sendError(req, res, new HttpError(403, Messages.forbidden));
      return;
    }
    if (listed) {
      res.setHeader('Access-Control-Allow-Methods', CORS_METHODS);
      res.setHeader('Access-Control-Allow-Headers', CORS_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
    }
    res.status(204).end();
  };
}

/** Bearer token on every API route when CAPTION_API_KEY is set (constant-time compare). */
export function requireToken(apiKey: string | undefined): RequestHandler {
  if (apiKey === undefined) return (_req, _res, next) => next();
  const check = bearerChecker(apiKey);
  return function checkToken(req, _res, next) {
    next(check(req.headers.authorization) ? undefined : new HttpError(401, Messages.unauthorized));
  };
}

/**
 * A foreign Origin gets 403 on every API route; routes for the local capture page (`local`)
 * also need `X-Caption-Local: 1`.
 */
export function requireOrigin(allowed: ReadonlySet<string>, local: boolean): RequestHandler {
  return function checkOrigin(req, _res, next) {
    const localOk = !local || req.headers['x-caption-local'] === '1';
    const originOk = originAllowed(req.headers.origin, ownOrigin(req), allowed);
    next(localOk && originOk ? undefined : new HttpError(403, Messages.forbidden));
  };
}

export function notFound(): RequestHandler {
  return function unknownRoute(_req, res) {
    res.status(404).json({ detail: Messages.notFound });
  };
}

/** Logs with the request's correlation id (`requestLog` runs first); `logger` if it did not. */
export function errorHandler(logger: Logger) {
  return function renderError(error: unknown, req: Request, res: Response, _next: NextFunction) {
    const log = res.locals.logger ?? logger;
    if (error instanceof ClientGone) {
      log.debug({ path: req.path }, 'client closed the request');
      if (!res.headersSent) res.destroy();
      return;
    }
    if (error instanceof HttpError) {
      sendError(req, res, error);
      return;
    }
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendError(req, res, new HttpError(status, 'Bad request'));
      return;
    }
    log.error({ err: error, path: req.path }, 'unexpected error');
    sendError(req, res, new HttpError(500, 'Internal server error'));
  };
}
