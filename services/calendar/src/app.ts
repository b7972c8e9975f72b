import { parseTrustedProxies, requestLog, serviceMetrics, tokenLookup } from '@live-captions/http';
import { createLogger, type Logger } from '@live-captions/runtime';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Knex } from 'knex';
import { isDatabaseUnavailable, isStatementTimeout } from './adapters/db.js';
import { ownerOf } from './adapters/owners.js';
import type { Tokens } from './adapters/tokens.js';
import { canWritePosts, type User } from './domain/auth.js';
import { type Currency, defaultCurrency } from './domain/cost.js';
import { ApiError, noRoute, RETRY_AFTER_S, refusals, unavailable } from './domain/errors.js';
import { allowHeader } from './routes/allow.js';
import { responseCache } from './routes/cache.js';
import { type AppContext, NAMESPACE } from './routes/context.js';
import { publicReadsCors } from './routes/cors.js';
import { eventHandlers } from './routes/events.js';
import { type ImportOptions, importRoute, subscriptionRoutes } from './routes/import.js';
import { linkedHandlers } from './routes/linked.js';
import { metaHandlers } from './routes/meta.js';
import { apiRouter } from './routes/router.js';
import { termHandlers } from './routes/terms.js';

export interface AppOptions {
  knex: Knex;
  restRoot: string;
  timezone: string;
  tokens: Tokens;
  /** The site's currency for costs (TEC's settings). @defaultValue `$`, prefix, USD */
  currency?: Currency;
  now?: () => Date;
  /** Lifetime of cached GET answers in ms (0: no cache). */
  cacheTtlMs?: number;
  /** Bytes of rendered list events kept for reuse. @defaultValue 32 MiB (0: none) */
  renderedEventsBytes?: number;
  /** Express `trust proxy` list (CALENDAR_TRUSTED_PROXIES). @defaultValue 'loopback' */
  trustProxy?: string;
  /** Called once when PostgreSQL becomes unreachable (`down`) and once when it answers again. */
  onDatabaseState?: (state: 'down' | 'up', error?: unknown) => void;
  /** Access lines, and the errors of a request with its correlation id. Default: the service's. */
  logger?: Logger;
  /** Schedule imports (address rule, size and time limits, recurrence horizon). */
  import?: Partial<ImportOptions>;
  /** Also told of each unexpected error (tests print them). */
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
  // Constant-time: a map lookup would tell by its timing how close a guessed token came.
  const userOf = tokenLookup(tokens);
  return function authenticate(req, res, next) {
    const header = req.get('authorization');
    const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
    if (match) res.locals.user = userOf(match[1]!);
    next();
  };
}

/** WordPress's discovery header on every answer: `Link: <{origin}{rest root}/>; rel="https://api.w.org/"`. */
function apiLink(restRoot: string): RequestHandler {
  return function apiLink(req, res, next) {
    res.set(
      'Link',
      `<${req.protocol}://${req.get('host') ?? 'localhost'}${restRoot}/>; rel="https://api.w.org/"`,
    );
    next();
  };
}

/** Codes for the client errors the body parsers and the router raise themselves. */
const requestErrorCodes: Record<number, string> = {
  413: 'rest_request_too_large',
  415: 'rest_unsupported_media_type',
};

/** Our words for the body parsers' refusals, by their `type` (never their own messages). */
const requestErrorMessages: Record<string, string> = {
  'entity.too.large': 'The request body is too large.',
  'parameters.too.many': 'The request has too many parameters.',
  'charset.unsupported': 'The request body must be UTF-8.',
  'encoding.unsupported': 'The request body is in a Content-Encoding this API does not read.',
  'request.aborted': 'The request body ended early.',
  'request.size.invalid': 'The request body does not match its Content-Length.',
};

/** When the parser gave no type: by status (a corrupt gzip body is 400 from zlib, for one). */
const requestStatusMessages: Record<number, string> = {
  413: 'The request body is too large.',
  415: 'The request body is in an encoding or charset this API does not read.',
};

/**
 * A 4xx the body parsers or the router raised (body too large, unsupported charset or
 * encoding, undecodable path) as an API error with that status, in our words: the libraries'
 * messages ("Failed to decode param", zlib's "incorrect header check") are not the API's.
 * Anything else is ours (500).
 */
function requestError(error: unknown): ApiError | undefined {
  const { status, expose } = (error ?? {}) as { status?: unknown; expose?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499 || expose === false) return undefined;
  return new ApiError(
    status,
    requestErrorCodes[status] ?? 'rest_invalid_request',
    requestErrorMessage(error, status),
  );
}

function requestErrorMessage(error: unknown, status: number): string {
  if (error instanceof URIError) return 'The request path is not valid percent-encoded UTF-8.';
  const { type, code } = error as { type?: unknown; code?: unknown };
  // zlib's errors (Z_DATA_ERROR, ...) come through the body parser as plain 400s.
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return 'The request body does not decode with its Content-Encoding.';
  }
  const byType = typeof type === 'string' ? requestErrorMessages[type] : undefined;
  return byType ?? requestStatusMessages[status] ?? 'The request could not be read.';
}

/**
 * PostgreSQL unreachable (restart, crash, pool exhausted) or a statement past its timeout: 503
 * with Retry-After, never the driver's message. The state change is reported once each way.
 */
function databaseErrors(options: AppOptions): ErrorRequestHandler {
  let down = false;
  options.knex.on('query-response', () => {
    if (!down) return;
    down = false;
    options.onDatabaseState?.('up');
  });
  return function databaseErrors(error, _req, res, next) {
    const lost = isDatabaseUnavailable(error);
    if (!lost && !isStatementTimeout(error)) return next(error);
    if (!lost) {
      res.locals.logger.error({ err: error }, 'statement timeout');
      options.onError?.(error);
    } else if (!down) {
      down = true;
      options.onDatabaseState?.('down', error);
    }
    res.set('Retry-After', String(RETRY_AFTER_S)).status(503).json(unavailable().toJSON());
  };
}

/** Nothing private unless listed, 10 MiB, 20 s, a year of recurrences. */
export const defaultImportOptions: ImportOptions = {
  allowedHosts: new Set(),
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 20_000,
  horizonDays: 366,
};

export function buildApp(options: AppOptions): Express {
  const ctx: AppContext = {
    knex: options.knex,
    restRoot: options.restRoot,
    timezone: options.timezone,
    tokens: options.tokens,
    currency: options.currency ?? defaultCurrency,
    now: options.now ?? (() => new Date()),
    renderedEventsBytes: options.renderedEventsBytes,
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQuery);
  app.set('trust proxy', parseTrustedProxies(options.trustProxy ?? 'loopback'));
  // Correlation id (the client's X-Request-ID when it sent one) and one access line per request.
  app.use(requestLog(options.logger ?? createLogger('calendar')));
  const metrics = serviceMetrics('calendar');
  app.use(metrics.track);
  // For Prometheus on the internal network; Traefik routes only /wp-json here.
  app.get('/metrics', metrics.serve);
  app.use(authenticate(options.tokens));
  // Every route lives under {rest_root}/cal/events/v1; cached answers go out before any parsing.
  const prefix = `${options.restRoot}/${NAMESPACE}`;
  app.use(apiLink(options.restRoot));
  // Before the cache: a cached answer goes to another origin's page too.
  app.use(options.restRoot, publicReadsCors());
  app.use(
    prefix,
    responseCache(options.cacheTtlMs ?? 0, (user) => canWritePosts(user as User | undefined)),
  );
  // Schedule imports take bodies up to the import limit, so they come before the 1 MB parser.
  const importOptions = { ...defaultImportOptions, ...options.import };
  app.post(`${prefix}/import`, ...importRoute(ctx, importOptions));
  app.use(prefix, subscriptionRoutes(ctx, importOptions));
  app.use(express.json({ limit: '1mb' }));
  app.use(express.urlencoded({ extended: true, limit: '1mb' }));

  const api = express.Router();
  api.use(allowHeader((collection, by) => ownerOf(options.knex, collection, by)));
  api.use(
    apiRouter({
      ...metaHandlers(ctx),
      ...eventHandlers(ctx),
      ...linkedHandlers(ctx, 'venue'),
      ...linkedHandlers(ctx, 'organizer'),
      ...termHandlers(ctx, 'categories'),
      ...termHandlers(ctx, 'tags'),
    }),
  );
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
      res.status(400).json(refusals.invalidJson().toJSON());
      return;
    }
    const refused = requestError(error);
    if (refused) {
      res.status(refused.status).json(refused.toJSON());
      return;
    }
    res.locals.logger.error({ err: error }, 'unexpected error');
    options.onError?.(error);
    res.status(500).json(refusals.internal().toJSON());
  };
  app.use(databaseErrors(options));
  app.use(onError);
  return app;
}
