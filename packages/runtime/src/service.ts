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

/** Resolves with the bound port once `server` listens; rejects on a listen error (port in use). */
export function listening(server: Server): Promise<number> {
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
