/**
 * Correlation ids and access lines, the same in every HTTP service: each request gets an id (the
 * client's `X-Request-ID` when it is a plain id, else a fresh one), a logger with that id bound,
 * and one line once it is answered. Never headers, bodies or query strings: they may carry tokens
 * or text.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from '@live-captions/runtime';
import type { RequestHandler } from 'express';

declare global {
  namespace Express {
    interface Locals {
      /** The request's correlation id ({@link requestLog}). */
      correlationId: string;
      /** The service's logger with the request's `correlationId` bound. */
      logger: Logger;
    }
  }
}

/** The speech contract's id format: a client's id outside it is not trusted into the logs. */
const CLIENT_ID = /^[A-Za-z0-9_-]{8,80}$/;

/** The request's correlation id: its `X-Request-ID` when well-formed, else a random UUID. */
export function correlationId(headers: IncomingHttpHeaders): string {
  const sent = headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_ID.test(sent) ? sent : randomUUID();
}

export interface AccessFields {
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  ms: number;
  correlationId: string;
}

/** The access line: debug, or warn when the service failed (5xx). */
export function logAccess(logger: Logger, fields: AccessFields): void {
  if (fields.status >= 500) logger.warn(fields, 'request failed');
  else logger.debug(fields, 'request');
}

/** The path of a raw request URL, without its query string. */
export const pathOf = (url: string | undefined) => (url ?? '/').split('?', 1)[0] ?? '/';

/**
 * Express: sets `res.locals.correlationId` and `res.locals.logger`, and logs the access line when
 * the answer is sent (an answer the client abandoned has none). Mount it first.
 */
export function requestLog(logger: Logger): RequestHandler {
  return function logRequest(req, res, next) {
    const started = performance.now();
    const id = correlationId(req.headers);
    res.locals.correlationId = id;
    res.locals.logger = logger.child({ correlationId: id });
    res.once('finish', () => {
      const ms = Math.round(performance.now() - started);
      // The whole path: a router that answered has its mount path stripped from `req.path`.
      const path = pathOf(req.originalUrl);
      logAccess(logger, { method: req.method, path, status: res.statusCode, ms, correlationId: id });
    });
    next();
  };
}
