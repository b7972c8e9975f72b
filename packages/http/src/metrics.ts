import { createServer } from 'node:http';
import type { RequestHandler } from 'express';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** Where Prometheus reads the figures; the proxies' rules hide exactly this path. */
export const METRICS_PATH = '/metrics';

/** Seconds: from a cached answer (ms) to a queued 12 s decode on a slow CPU. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40];

export interface ServiceMetrics {
  /** Add service-specific metrics here (`registers: [metrics.register]`). */
  readonly register: Registry;
  /** Counts each request by route pattern, method and status, and times it. */
  readonly track: RequestHandler;
  /**
   * `GET /metrics` in Prometheus's text format. Not for the public: the proxy does not route it.
   * Mount it at {@link METRICS_PATH}; other spellings of the path (case, trailing slash) pass on.
   */
  readonly serve: RequestHandler;
}

/**
 * One Prometheus registry per service, with the process defaults and the HTTP figures every
 * service reports the same way: `<service>_http_requests_total{route,method,status}` and
 * `<service>_http_request_duration_seconds{route,method}`. Routes are express's patterns
 * (`/streams/:stream_id`, without a router's mount path), never raw paths, so the label set
 * stays bounded.
 */
export function serviceMetrics(service: string): ServiceMetrics {
  const register = new Registry();
  collectDefaultMetrics({ register, prefix: `${service}_` });
  const requests = new Counter({
    name: `${service}_http_requests_total`,
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [register],
  });
  const duration = new Histogram({
    name: `${service}_http_request_duration_seconds`,
    help: 'Time from request to the end of the answer',
    labelNames: ['route', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [register],
  });

  const track: RequestHandler = (req, res, next) => {
    const stop = duration.startTimer();
    res.once('finish', () => {
      // Known only once routing happened; 404s share one label, and so does whatever no route
      // answered (static files, cached answers). The pattern is the route's own, without its
      // router's mount path: express has already restored `baseUrl` when an error answer ends.
      const pattern = req.route?.path;
      const route = typeof pattern === 'string' ? pattern : res.statusCode === 404 ? 'unmatched' : 'static';
      requests.inc({ route, method: req.method, status: String(res.statusCode) });
      stop({ route, method: req.method });
    });
    next();
  };

  const serve: RequestHandler = async (req, res, next) => {
    // Only the exact path: the proxy hides exactly `/metrics`, while express also routes
    // `/METRICS` and `/metrics/` here, which the proxy would pass on to the public.
    if (req.path !== METRICS_PATH) {
      next();
      return;
    }
    res.type(register.contentType).send(await register.metrics());
  };

  return { register, track, serve };
}

/**
 * `GET /metrics` on its own listener, for processes that serve no HTTP otherwise (the worker).
 * Resolves once listening; `close()` stops it.
 */
export async function listenMetrics(
  register: Registry,
  options: { port: number; bind: string },
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    if (req.method !== 'GET' || req.url !== METRICS_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
      return;
    }
    const body = await register.metrics();
    res.writeHead(200, { 'Content-Type': register.contentType }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.bind, () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
