import type { IncomingMessage, ServerResponse } from 'node:http';
import { correlationId, logAccess, pathOf } from '@live-captions/http';
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
}

/**
 * The HTTP routes, `GET`/`HEAD` `/health` and `/metrics` (404 elsewhere, 405 for other methods),
 * each answered with an access line carrying the request's correlation id.
 */
export function httpRoutes(context: HttpRoutesContext) {
  const { hub, logger: log } = context;
  return async function route(req: IncomingMessage, res: ServerResponse) {
    const path = pathOf(req.url);
    if (
      context.rooms &&
      (path === '/rooms' ||
        path.startsWith('/rooms/') ||
        path === '/public/rooms' ||
        path === '/activity/rooms')
    )
      return context.rooms(req, res);
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
