// Inference worker process: configuration, the BullMQ worker, and a graceful SIGTERM.
import { startRedisWorker } from '@live-captions/inference';
import { ConfigError, createLogger } from '@live-captions/runtime';
import { loadWorkerConfig } from './config.js';

const logger = createLogger('worker');

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const worker = await startRedisWorker({
    redisUrl: config.redisUrl,
    engine: config.engine,
    logger,
    ...(config.workerId ? { id: config.workerId } : {}),
  });

  // SIGTERM: stop taking jobs, let running decodes finish, withdraw the announcement, exit.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'draining');
    worker.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    logger.fatal({ err: error }, 'worker failed to start');
  }
  process.exit(1);
});
