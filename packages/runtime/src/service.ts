import { Server as HttpServer } from 'node:http';
import type { Server } from 'node:net';
import { ConfigError } from './env.js';
import type { Logger } from './logger.js';

/**
 * Runs a service's start-up. A configuration mistake prints its message alone (an operator's typo
 * deserves no stack trace); any other failure is logged as fatal. Both exit 1.
 */
export function runService(logger: Logger, start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    if (error instanceof ConfigError) console.error(error.message);
    else logger.fatal({ err: error }, 'failed to start');
    process.exit(1);
  });
}

/**
 * On the first SIGTERM or SIGINT runs `stop` (stop accepting, drain, release), then exits 0, or 1
 * when stopping fails. Further signals while it runs are ignored.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * On SIGHUP runs `reload` (a configuration file read again and applied) and logs what it returns as
 * "<what> reloaded"; when `reload` throws (an invalid file), the running configuration stays and
 * the log line says why.
 */
export function reloadOnHangup(logger: Logger, what: string, reload: () => Record<string, unknown>): void {
  process.on('SIGHUP', () => {
    try {
      logger.info(reload(), `${what} reloaded`);
    } catch (error) {
      logger.error({ err: (error as Error).message }, `reload refused; keeping the running ${what}`);
    }
  });
}

/** Stops an HTTP server: it accepts nothing more and its open connections are closed, idle ones included. */
export function closeServer(server: HttpServer): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}

/**
 * How long an HTTP server keeps an idle client connection: longer than the proxies in front of
 * it keep theirs (Traefik and Go's transport: 90 s; nginx upstreams: 60 s). With Node's default
 * of 5 s the server closes a connection the proxy still counts as usable; a POST the proxy sends
 * on it at that moment fails (Traefik answers 502, fetch "other side closed") and, not being
 * idempotent, is never retried: a caption or a destination lost to a timing accident.
 */
export const KEEP_ALIVE_MS = 95_000;

/**
 * Resolves with the bound port once `server` listens; rejects on a listen error (port in use).
 * An HTTP server keeps idle connections KEEP_ALIVE_MS (it still closes idle ones on close()).
 */
export function listening(server: Server): Promise<number> {
  if (server instanceof HttpServer) server.keepAliveTimeout = KEEP_ALIVE_MS;
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.once('listening', () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}
