// Inference worker process: configuration, the BullMQ worker, and a graceful SIGTERM.
import { startRedisWorker } from '@live-captions/inference';
import { createLogger, runService, stopOnSignals } from '@live-captions/runtime';
import { loadWorkerConfig } from './config.js';

const logger = createLogger('worker');

runService(logger, async () => {
  const config = loadWorkerConfig();
  const worker = await startRedisWorker({
    redisUrl: config.redisUrl,
    engine: config.engine,
    logger,
    ...(config.workerId ? { id: config.workerId } : {}),
  });
  // Stop taking jobs, let running decodes finish, withdraw the announcement, exit.
  stopOnSignals(logger, () => worker.close());
});
