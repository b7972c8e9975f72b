/**
 * The caption rooms' HTTP API on the relay:
 * - `GET /rooms`, `POST /rooms`, `GET|PATCH|DELETE /rooms/:id`, `POST /rooms/:id/tokens` (rotate):
 *   the operator API, with the service access token (`Authorization: Bearer CAPTION_API_KEY`;
 *   without one configured, only from loopback). Answers carry the rooms' tokens.
 * - `GET /activity/rooms` (service token): each room's publishers, readers, captions of the last
 *   minute, last caption and languages: what the board of rooms shows.
 * - `GET /public/rooms`: no token, any origin; names, output rooms, their read tokens (the
 *   audience link is a read link), live or not, languages. Never a write token.
 */

import { bearerChecker, corsFor, requestLog, securityHeaders } from '@live-captions/http';
import {
  type CaptionRoomActivityList,
  type CaptionRoomList,
  captionRoomPatchSchema,
  newCaptionRoomSchema,
  type PublicCaptionRoomList,
  type RelayRoomActivity,
} from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import type { z } from 'zod';
import type { RoomActivity } from '../domain/activity.js';
import { type RoomRegistry, RoomsError } from '../registry/room-registry.js';

/** A room counts as live this long after its last caption, or while a publisher is joined. */
export const LIVE_WITHIN_MS = 2 * 60_000;
/** How long one public list answers every asker (its live flags and languages may lag this much). */
const PUBLIC_REUSE_MS = 2000;

export interface RoomsRoutesContext {
  registry: RoomRegistry;
  /** The service access token; undefined: loopback callers only. */
  apiKey: string | undefined;
  /** Browser origins allowed to call the operator API (the relay's page origins). */
  origins: () => ReadonlySet<string>;
  activity: (room: string) => (RoomActivity & { writers: number; readers: number }) | undefined;
  logger: Logger;
  now?: () => number;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

function requireOperator(apiKey: string | undefined): RequestHandler {
  const check = apiKey === undefined ? undefined : bearerChecker(apiKey);
  return (req, res, next) => {
    if (check ? check(req.headers.authorization) : LOOPBACK.test(req.socket.remoteAddress ?? ''))
      return next();
    res.setHeader('WWW-Authenticate', 'Bearer');
    next(new ApiError(401, 'unauthorized', 'Missing or wrong service access token'));
  };
}

/** The body, validated; a 400 naming each wrong field otherwise. */
function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const message = result.error.issues
    .map((issue) =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => `${key}: unknown field`).join('; ')
        : `${issue.path.join('.') || 'body'}: ${issue.message}`,
    )
    .join('; ');
  throw new ApiError(400, 'invalid_request', message);
}

const errors: ErrorRequestHandler = (error, _req, res, _next) => {
  let status = 500;
  let code = 'internal';
  let message = 'Internal error';
  if (error instanceof ApiError) ({ status, code, message } = error);
  else if (error instanceof RoomsError) {
    status = error.status;
    code = { 404: 'not_found', 409: 'conflict', 503: 'unavailable' }[error.status];
    message = error.message;
  } else if ((error as { type?: string }).type === 'entity.too.large') {
    status = 413;
    code = 'payload_too_large';
    message = 'Body over 4 KiB';
  } else if ((error as { type?: string }).type === 'entity.parse.failed') {
    status = 400;
    code = 'invalid_request';
    message = 'body: not valid JSON';
  } else res.locals.logger?.error({ err: (error as Error).message }, 'rooms request failed');
  if (status === 503) res.setHeader('Retry-After', '2');
  res.status(status).json({ error: { message, code } });
};

/** The rooms API as an Express app; the relay's HTTP handler passes it its three paths. */
export function roomsApp(context: RoomsRoutesContext): express.Express {
  const { registry } = context;
  const now = context.now ?? Date.now;
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.use(requestLog(context.logger));
  app.use(securityHeaders([]));

  // Every phone on the public page asks every few seconds, and each answer reads the rooms'
  // recent captions: one answer serves them all for PUBLIC_REUSE_MS, or until the rooms change.
  let kept: { etag: string; until: number; body: string } | undefined;
  const publicList = (): string => {
    const at = now();
    const etag = registry.etag();
    if (kept && kept.etag === etag && kept.until > at) return kept.body;
    const body: PublicCaptionRoomList = {
      rooms: registry.list().map((room) => {
        const source = context.activity(room.sourceRoom);
        const output = context.activity(room.outputRoom);
        const lastAt = Math.max(source?.lastAt ?? 0, output?.lastAt ?? 0);
        const writers = (source?.writers ?? 0) + (output?.writers ?? 0);
        return {
          id: room.id,
          name: room.name,
          outputRoom: room.outputRoom,
          outputReadToken: room.tokens.outputRead,
          live: writers > 0 || at - lastAt < LIVE_WITHIN_MS,
          languages: output?.languages.length ? output.languages : (source?.languages ?? []),
          venue: room.schedule?.venue ?? null,
        };
      }),
    };
    kept = { etag, until: at + PUBLIC_REUSE_MS, body: JSON.stringify(body) };
    return kept.body;
  };

  app.get('/public/rooms', (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/json').send(publicList());
  });

  const operator = express.Router();
  // The origins follow the configuration file (SIGHUP), so the CORS rule is made per request.
  operator.use((req, res, next) =>
    corsFor(context.origins(), { methods: ['GET', 'POST', 'PATCH', 'DELETE'], exposeHeaders: ['ETag'] })(
      req,
      res,
      next,
    ),
  );
  operator.use(requireOperator(context.apiKey));
  operator.use(express.json({ limit: '4kb' }));

  operator.get('/rooms', (req, res) => {
    const etag = registry.etag();
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'no-store');
    if (req.headers['if-none-match'] === etag) return void res.status(304).end();
    const body: CaptionRoomList = { rooms: [...registry.list()], version: etag.slice(1, -1) };
    res.json(body);
  });

  operator.get('/activity/rooms', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const relayRoom = (name: string): RelayRoomActivity => {
      const activity = context.activity(name);
      return {
        publishers: activity?.writers ?? 0,
        readers: activity?.readers ?? 0,
        captionsLastMinute: activity?.lastMinute ?? 0,
        lastCaptionAt: activity?.lastAt ? new Date(activity.lastAt).toISOString() : null,
        languages: activity?.languages ?? [],
      };
    };
    const body: CaptionRoomActivityList = {
      rooms: registry.list().map((room) => ({
        id: room.id,
        source: relayRoom(room.sourceRoom),
        output: relayRoom(room.outputRoom),
      })),
    };
    res.json(body);
  });

  operator.post('/rooms', async (req, res) => {
    const input = parseBody(newCaptionRoomSchema, req.body);
    const room = await registry.create(input.name, input.id);
    res.status(201).setHeader('Location', `/rooms/${room.id}`).json({ room });
  });

  operator.get('/rooms/:id', (req, res) => {
    const room = registry.get(req.params.id!);
    if (!room) throw new ApiError(404, 'not_found', `No room "${req.params.id}"`);
    res.json({ room });
  });

  operator.patch('/rooms/:id', async (req, res) => {
    const input = parseBody(captionRoomPatchSchema, req.body);
    res.json({ room: await registry.patch(req.params.id!, input) });
  });

  operator.post('/rooms/:id/tokens', async (req, res) => {
    res.json({ room: await registry.rotate(req.params.id!) });
  });

  operator.delete('/rooms/:id', async (req, res) => {
    await registry.remove(req.params.id!);
    res.status(204).end();
  });

  app.use(operator);
  app.use((_req, res) => {
    res.status(404).json({ error: { message: 'Not found', code: 'not_found' } });
  });
  app.use(errors);
  return app;
}
