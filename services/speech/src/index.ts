/**
 * Speech gateway process: read config (refuse to start on a wrong variable), pick the queue
 * backend (BullMQ when REDIS_URL is set, else the in-process worker), listen, and shut down
 * gracefully on SIGTERM/SIGINT.
 */
import { createInProcessQueue, createRedisQueue, loadEngineConfig } from '@live-captions/inference';
import { createLogger, listening, readAll, runService, stopOnSignals } from '@live-captions/runtime';
import { queueBoard } from './adapters/queue-board.js';
import { createRedisSessionStore } from './adapters/redis-sessions.js';
import { loadRelayTokens } from './adapters/relay-tokens.js';
import { createApp } from './app.js';
import { loadConfig, speechEnvironment } from './config.js';

const logger = createLogger('speech');

/** Gateway and engine settings (every wrong variable of both at once), then the relay tokens file. */
function settings(env: NodeJS.ProcessEnv) {
  // CAPTION_QUEUE_NAME is validated with the engine settings the workers share.
  const [config, engine] = readAll(
    () => loadConfig(env),
    () => loadEngineConfig(env),
  );
  return { config, engine, relay: loadRelayTokens(config.relayTokensFile) };
}

async function main(): Promise<void> {
  const { config, engine, relay } = settings(speechEnvironment());
  const redisQueue = config.redisUrl
    ? createRedisQueue({
        redisUrl: config.redisUrl,
        queueName: engine.queueName,
        watchdogMs: engine.watchdogMs,
        logger,
      })
    : undefined;
  const queue = redisQueue ?? createInProcessQueue({ engine, logger });
  // With Redis, stream sessions live there too: any number of gateways answer as one.
  const sessionStore = redisQueue
    ? createRedisSessionStore({
        client: redisQueue.client,
        namespace: engine.queueName,
        maxStreams: config.maxStreams,
      })
    : undefined;

  // The read-only queue view needs the BullMQ queue; the in-process backend has none to show.
  const opsRouter = redisQueue ? queueBoard(redisQueue.bullQueue) : undefined;
  const { app, shutdown } = createApp({ config, queue, relay, logger, sessionStore, opsRouter });
  const server = app.listen(config.port, config.bind);
  const port = await listening(server);
  logger.info(
    {
      bind: config.bind,
      port,
      backend: config.redisUrl ? 'redis' : 'in-process',
      auth: config.apiKey !== undefined,
    },
    'speech gateway listening',
  );
  // Health answers 503 `Model loading` until the engine (or the first Redis worker) is ready.
  queue.start().then(
    () => logger.info('inference queue started'),
    (error: unknown) => {
      logger.fatal({ err: error }, 'inference queue failed to start');
      process.exit(1);
    },
  );

  stopOnSignals(logger, () => shutdown(server));
}

runService(logger, main);
