// Inference worker process: configuration, the BullMQ worker, and a graceful SIGTERM.

import { listenMetrics } from '@live-captions/http';
import { startRedisWorker } from '@live-captions/inference';
import { createLogger, runService, stopOnSignals } from '@live-captions/runtime';
import { loadWorkerConfig } from './config.js';
import { workerMetrics } from './metrics.js';

const logger = createLogger('worker');

runService(logger, async () => {
  const config = loadWorkerConfig();
  const worker = await startRedisWorker({
    redisUrl: config.redisUrl,
    engine: config.engine,
    logger,
    id: config.workerId,
  });
  // Metrics are for operators: a taken port is reported, and the worker decodes all the same.
  const metrics =
    config.metrics.port === 0
      ? undefined
      : await listenMetrics(workerMetrics(worker.pool, worker.id), config.metrics).catch((error: unknown) => {
          logger.error(
            { err: error, port: config.metrics.port },
            'metrics listener failed; running without it',
          );
          return undefined;
        });
  if (metrics) logger.info({ port: metrics.port, bind: config.metrics.bind }, 'metrics listening');
  // Stop taking jobs, let running decodes finish, withdraw the announcement, exit.
  stopOnSignals(logger, async () => {
    await worker.close();
    await metrics?.close();
  });
});
