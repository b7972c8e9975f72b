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
import {
  createLogger,
  listening,
  readAll,
  readEnvFile,
  runService,
  stopOnSignals,
} from '@live-captions/runtime';
import { queueBoard } from './adapters/queue-board.js';
import { createRedisSessionStore } from './adapters/redis-sessions.js';
import { loadRelayTokens } from './adapters/relay-tokens.js';
import { sileroVad } from './adapters/vad.js';
import { createApp } from './app.js';
import { loadConfig, SECRETS_DIR } from './config.js';

const logger = createLogger('speech');

function environment(): NodeJS.ProcessEnv {
  // secrets/caption-local.env (optional) fills what the environment leaves unset.
  const file = process.env.CAPTION_LOCAL_ENV_FILE ?? `${SECRETS_DIR}caption-local.env`;
  return { ...(readEnvFile(file) ?? {}), ...process.env };
}

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
  const { config, engine, relay } = settings(environment());
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
  // The realtime VAD file is fetched like the worker's (unless offline); until it is there, or
  // if it cannot be had, realtime upgrades answer 503 and the rest of the API is unaffected.
  const vadPath = prepareVadFile({ ...engine, vadModel: config.realtime.vadModel }, logger);
  vadPath.catch((error: unknown) =>
    logger.warn({ err: error }, 'realtime VAD model unavailable: /v1/realtime answers 503'),
  );
  const { app, realtime, shutdown } = createApp({
    config,
    queue,
    relay,
    logger,
    sessionStore,
    opsRouter,
    vad: sileroVad(vadPath),
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
