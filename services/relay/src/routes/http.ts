import type { IncomingMessage, ServerResponse } from 'node:http';
import { correlationId, logAccess, pathOf } from '@live-captions/http';
import { NO_ROOMS_STORE } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import { type NodeState, relayHealth } from '../hub/health.js';
import type { Hub } from '../hub/hub.js';

export interface HttpRoutesContext {
  hub: Hub;
  /** False until the server listens and once it closes. */
  ready: () => boolean;
  node: () => NodeState;
  metrics: { contentType: string; scrape(): Promise<string> };
  logger: Logger;
  /** The caption rooms API (`/rooms`, `/public/rooms`), when the relay has a rooms store. */
  rooms?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Whether the rooms store answers (undefined without one): shown in /health. */
  roomsStore?: () => boolean | undefined;
  /** The pages' origins: a relay without rooms still says so to the links hub in a way it can read. */
  origins?: () => ReadonlySet<string>;
}

const ROOMS_PATHS = new Set(['/rooms', '/public/rooms', '/activity/rooms']);
const isRoomsPath = (path: string) => ROOMS_PATHS.has(path) || path.startsWith('/rooms/');

/**
 * `/rooms` on a relay without a rooms store: a JSON 404 that says why, with CORS for the pages'
 * origins (a bare 404 without it reads as a network failure in the browser).
 */
function noRoomsStore(req: IncomingMessage, res: ServerResponse, origins: ReadonlySet<string>): void {
  const origin = req.headers.origin;
  const listed = origin !== undefined && origins.has(origin);
  const headers: Record<string, string> = {
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  };
  if (listed) {
    headers['access-control-allow-origin'] = origin;
    headers.vary = 'Origin';
  }
  if (req.method === 'OPTIONS' && listed) {
    res.writeHead(204, {
      ...headers,
      'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
      'access-control-allow-headers': 'Authorization, Content-Type',
      'access-control-max-age': '600',
    });
    res.end();
    return;
  }
  const message = 'This relay keeps no caption rooms: start it with RELAY_DATA_DIR or DATABASE_URL';
  res.writeHead(404, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message, code: NO_ROOMS_STORE } }));
}

/**
 * The HTTP routes, `GET`/`HEAD` `/health` and `/metrics` (404 elsewhere, 405 for other methods),
 * each answered with an access line carrying the request's correlation id.
 */
export function httpRoutes(context: HttpRoutesContext) {
  const { hub, logger: log } = context;
  return async function route(req: IncomingMessage, res: ServerResponse) {
    const path = pathOf(req.url);
    if (isRoomsPath(path)) {
      if (context.rooms) return context.rooms(req, res);
      return noRoomsStore(req, res, context.origins?.() ?? new Set());
    }
    const started = performance.now();
    const id = correlationId(req.headers);
    res.once('finish', () => {
      const ms = Math.round(performance.now() - started);
      logAccess(log, { method: req.method ?? 'GET', path, status: res.statusCode, ms, correlationId: id });
    });
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, {
        'content-type': type,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (path !== '/health' && path !== '/metrics') return send(404, 'text/plain; charset=utf-8', 'Not found');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(405, 'text/plain; charset=utf-8', 'Method not allowed');
    if (path === '/health') {
      const health = relayHealth(hub, context.ready(), context.node());
      const store = context.roomsStore?.();
      // A node whose rooms store is down still serves every room it holds: it stays ready.
      const body = store === undefined ? health : { ...health, roomsStore: store ? 'ok' : 'down' };
      return send(health.ready ? 200 : 503, 'application/json', JSON.stringify(body));
    }
    try {
      send(200, context.metrics.contentType, await context.metrics.scrape());
    } catch (error) {
      log.error({ err: (error as Error).message, correlationId: id }, 'metrics failed');
      send(500, 'text/plain; charset=utf-8', 'Metrics failed');
    }
  };
}
