/**
 * What every route shares: the `{error:{message, code}}` body, bearer tokens of a room (constant
 * time), and CORS for the allowed browser origins.
 */
import { tokensEqual } from '@live-captions/http';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { HttpError } from '../domain/api.js';
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
 * (`read`).
 */
export function requireToken(rooms: () => Map<string, RoomTokens>, need: 'read' | 'write'): RequestHandler {
  return (req, _res, next) => {
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

export function cors(allowed: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (allowed.size > 0) res.vary('Origin');
    const listed = origin !== undefined && allowed.has(origin);
    if (listed) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', 'Content-Disposition');
    }
    if (req.method !== 'OPTIONS') return next();
    if (!listed) {
      next(new HttpError(403, 'unauthorized', 'Origin not allowed'));
      return;
    }
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  };
}

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
  else {
    // The code only: a driver's message may quote a statement.
    res.locals.logger?.error({ code: (error as { code?: string }).code ?? 'unknown' }, 'request failed');
    http = new HttpError(503, 'unavailable', 'Storage unavailable, try again');
  }
  res.status(http.status).json({ error: { message: http.message, code: http.code } });
};
