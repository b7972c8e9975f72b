/**
 * Speech gateway process: read config (refuse to start on a wrong variable), pick the queue
 * backend (BullMQ when REDIS_URL is set, else the in-process worker), listen, and shut down
 * gracefully on SIGTERM/SIGINT.
 */
import {
  createInProcessQueue,
  createRedisQueue,
  loadEngineConfig,
  prepareVadFile,
} from '@live-captions/inference';
import { createLogger, listening, readAll, runService, stopOnSignals } from '@live-captions/runtime';
import { queueBoard } from './adapters/queue-board.js';
import { createRedisStreamStore } from './adapters/redis-stream-store.js';
import { loadRelayTokens } from './adapters/relay-tokens.js';
import { sileroVad } from './adapters/vad.js';
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
  return { config, engine, relay: loadRelayTokens(config.relayTokensFile, env) };
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
  // With Redis, streams live there too: any number of gateways answer as one.
  const streamStore = redisQueue
    ? createRedisStreamStore({
        client: redisQueue.client,
        namespace: engine.queueName,
        maxStreams: config.maxStreams,
      })
    : undefined;

  // The read-only queue view needs the BullMQ queue; the in-process backend has none to show.
  const opsRouter = redisQueue ? queueBoard(redisQueue.bullQueue) : undefined;
  // The realtime VAD file is fetched like the worker's (unless offline). Until it is there, or
  // if it cannot be had, realtime upgrades answer 503 and the rest of the API is unaffected; a
  // missing file is looked for again as sessions ask (compose: the worker downloads it).
  const prepareVad = () => {
    const path = prepareVadFile({ ...engine, vadModel: config.realtime.vadModel }, logger);
    path.catch((error: unknown) =>
      logger.warn({ err: error }, 'realtime VAD model unavailable: /v1/realtime answers 503'),
    );
    return path;
  };
  const { app, realtime, shutdown } = createApp({
    config,
    queue,
    relay,
    logger,
    streamStore,
    opsRouter,
    vad: sileroVad(prepareVad),
  });
  const server = app.listen(config.port, config.bind);
  realtime.attach(server);
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
