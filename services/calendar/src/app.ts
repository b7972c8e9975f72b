import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { Tokens } from './adapters/tokens.js';
import { canWritePosts, type User } from './domain/auth.js';
import { ApiError, noRoute } from './domain/errors.js';
import { responseCache } from './routes/cache.js';
import { type AppContext, NAMESPACE } from './routes/context.js';
import { eventRoutes } from './routes/events.js';
import { linkedRoutes } from './routes/linked.js';
import { metaRoutes } from './routes/meta.js';
import { termRoutes } from './routes/terms.js';

export interface AppOptions {
  knex: Knex;
  restRoot: string;
  timezone: string;
  tokens: Tokens;
  now?: () => Date;
  /** Lifetime of cached GET answers in ms (0: no cache). */
  cacheTtlMs?: number;
  /** Express `trust proxy` list (CALENDAR_TRUSTED_PROXIES). @defaultValue 'loopback' */
  trustProxy?: string;
  onError?: (error: unknown) => void;
}

/**
 * Query strings as WordPress reads them: `a[]=1&a[]=2` and repeated keys give arrays, anything
 * else a string (the schemas split CSV values).
 */
function parseQuery(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const isArray = rawKey.endsWith('[]');
    const key = isArray ? rawKey.slice(0, -2) : rawKey;
    const existing = out[key];
    if (existing === undefined) out[key] = isArray ? [value] : value;
    else out[key] = [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  return out;
}

/** `Authorization: Bearer <token>` -> the token's user; unknown tokens read as anonymous. */
function authenticate(tokens: Tokens): RequestHandler {
  return function authenticate(req, res, next) {
    const header = req.get('authorization');
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (match) res.locals.user = tokens.get(match[1]!);
    next();
  };
}

/** Codes for the client errors the body parsers and the router raise themselves. */
const requestErrorCodes: Record<number, string> = {
  413: 'rest_request_too_large',
  415: 'rest_unsupported_media_type',
};

/**
 * A 4xx the body parsers or the router raised (body too large, unsupported charset or
 * encoding, undecodable path) as an API error with that status; anything else is ours (500).
 */
function requestError(error: unknown): ApiError | undefined {
  const { status, expose, message } = (error ?? {}) as {
    status?: unknown;
    expose?: unknown;
    message?: unknown;
  };
  if (typeof status !== 'number' || status < 400 || status > 499 || expose === false) return undefined;
  const text = typeof message === 'string' && message ? message : 'Bad request';
  const sentence = `${text[0]!.toUpperCase()}${text.slice(1)}${text.endsWith('.') ? '' : '.'}`;
  return new ApiError(status, requestErrorCodes[status] ?? 'rest_invalid_request', sentence);
}

export function buildApp(options: AppOptions): Express {
  const ctx: AppContext = {
    knex: options.knex,
    restRoot: options.restRoot,
    timezone: options.timezone,
    tokens: options.tokens,
    now: options.now ?? (() => new Date()),
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQuery);
  app.set('trust proxy', options.trustProxy ?? 'loopback');
  app.use(authenticate(options.tokens));
  // Every route lives under {rest_root}/cal/events/v1; cached answers go out before any parsing.
  const prefix = `${options.restRoot}/${NAMESPACE}`;
  app.use(
    prefix,
    responseCache(options.cacheTtlMs ?? 0, (user) => canWritePosts(user as User | undefined)),
  );
  app.use(express.json({ limit: '1mb' }));
  app.use(express.urlencoded({ extended: true, limit: '1mb' }));

  const api = express.Router();
  api.use(metaRoutes(ctx));
  api.use(eventRoutes(ctx));
  api.use(linkedRoutes(ctx, 'venue'));
  api.use(linkedRoutes(ctx, 'organizer'));
  api.use(termRoutes(ctx, 'categories'));
  api.use(termRoutes(ctx, 'tags'));
  app.use(prefix, api);

  app.use(function noRouteFound(_req, _res, next) {
    next(noRoute());
  });
  const onError: ErrorRequestHandler = function apiErrors(error, _req, res, _next) {
    if (error instanceof ApiError) {
      res.status(error.status).json(error.toJSON());
      return;
    }
    if (error?.type === 'entity.parse.failed') {
      res.status(400).json(new ApiError(400, 'rest_invalid_json', 'Invalid JSON body passed.').toJSON());
      return;
    }
    const refused = requestError(error);
    if (refused) {
      res.status(refused.status).json(refused.toJSON());
      return;
    }
    options.onError?.(error);
    res.status(500).json(new ApiError(500, 'rest_internal_error', 'Internal server error.').toJSON());
  };
  app.use(onError);
  return app;
}
