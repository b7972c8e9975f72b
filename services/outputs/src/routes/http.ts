/**
 * What every route shares: the `{error:{message, code}}` body and bearer tokens of a room
 * (constant time). CORS is `@live-captions/http`'s corsFor, as for the stream sources service.
 */
import { bearerChecker, tokensEqual } from '@live-captions/http';
import { RELAY_ROOM_NAME } from '@live-captions/protocol';
import { isDataError, sqlState } from '@live-captions/sql';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { HttpError, ID } from '../domain/api.js';
import type { RoomTokens } from '../domain/rooms.js';

const UNAUTHORIZED = 'Unknown room or wrong token';
// Compared against when the room is unknown, so that the answer takes as long as a wrong token.
const NOBODY = { read: 'x'.repeat(43), write: 'y'.repeat(43) };

function bearer(req: Request): string {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer ([A-Za-z0-9_-]{1,256})$/.exec(header);
  return match?.[1] ?? '';
}

/**
 * 401 unless the request carries the room's write token (`write`) or either of its tokens
 * (`read`), or `serviceKey` (CAPTION_API_KEY) where a route takes it.
 */
export function requireToken(
  rooms: () => Map<string, RoomTokens>,
  need: 'read' | 'write',
  serviceKey?: string,
): RequestHandler {
  const operator = serviceKey === undefined ? undefined : bearerChecker(serviceKey);
  return (req, _res, next) => {
    // The service access token (an operator) passes for any room, one that was removed included:
    // a room's transcripts outlive the room and its tokens.
    if (operator?.(req.headers.authorization)) return next();
    const room = String(req.params.room ?? '');
    const known = rooms().get(room);
    const tokens = known ?? NOBODY;
    const given = bearer(req);
    const write = tokensEqual(given, tokens.write);
    const read = tokensEqual(given, tokens.read);
    if (!known || given === '' || !(write || (need === 'read' && read))) {
      next(new HttpError(401, 'unauthorized', UNAUTHORIZED));
      return;
    }
    next();
  };
}

/**
 * A JSON body of at most 16 KiB, read only where a route takes one and after its token check
 * (`requireToken` before it): a request without a valid token gets 401, never a 400 or 413 about
 * a body nobody should have read.
 */
export const jsonBody: RequestHandler = express.json({ limit: '16kb' });

/**
 * 404 unless the route's `name` parameter is an id this service gives (a UUID): an id that can
 * never exist is not a question for the database (a NUL in it was answered 503 by PostgreSQL's
 * refusal).
 */
export function requireId(name: string, what: string): RequestHandler {
  return (req, _res, next) => {
    next(ID.test(String(req.params[name] ?? '')) ? undefined : new HttpError(404, 'not_found', what));
  };
}

/**
 * 404 unless the route's room is a name the relay could have (a service token passes for rooms
 * this replica does not know, yet or any more: its name is all there is to check).
 */
export const requireRoomName: RequestHandler = (req, _res, next) => {
  next(
    RELAY_ROOM_NAME.test(String(req.params.room ?? ''))
      ? undefined
      : new HttpError(404, 'not_found', 'No such room'),
  );
};

/** Every error as `{error:{message, code}}`; body-parser's own errors mapped to 400/413. */
export const errorHandler: ErrorRequestHandler = (error, _req, res, _next) => {
  let http: HttpError;
  if (error instanceof HttpError) http = error;
  else if ((error as { type?: string }).type === 'entity.too.large')
    http = new HttpError(413, 'payload_too_large', 'Body over 16 KiB');
  else if ((error as { type?: string }).type === 'entity.parse.failed')
    http = new HttpError(400, 'invalid_request', 'body: not valid JSON');
  else if ((error as { status?: number }).status === 400 || (error as { status?: number }).status === 415)
    http = new HttpError(400, 'invalid_request', 'body: unreadable');
  else if (isDataError(error)) {
    // PostgreSQL refused a value the checks above let through: retrying cannot help, so not a 503.
    res.locals.logger?.warn({ code: sqlState(error) }, 'request refused by the database');
    http = new HttpError(400, 'invalid_request', 'request: holds a value that cannot be stored');
  } else {
    // The code only: a driver's message may quote a statement.
    res.locals.logger?.error({ code: (error as { code?: string }).code ?? 'unknown' }, 'request failed');
    http = new HttpError(503, 'unavailable', 'Storage unavailable, try again');
  }
  res.status(http.status).json({ error: { message: http.message, code: http.code } });
};
