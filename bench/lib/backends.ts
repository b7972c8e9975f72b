/**
 * The servers `pnpm bench speech` and `pnpm bench realtime` load: an inference backend (the
 * in-process engine, or BullMQ on Redis with two worker processes, as a deployment runs them) and
 * the speech gateway in front of it in this process, on a loopback port with the limits raised
 * out of the way. The model is the realistic-length synthetic one unless a bench asks for the
 * old one that says " test" (3 tokens) for any audio.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createInProcessQueue,
  createRedisQueue,
  type EngineConfig,
  engineConfigFor,
  type InferenceQueue,
} from '@live-captions/inference';
import { createLogger, listening } from '@live-captions/runtime';
import {
  createApp,
  createRedisStreamStore,
  loadConfig,
  type VadSource,
} from '@live-captions/speech/embedded';
import {
  killAll,
  type RedisServer,
  type ServiceProcess,
  startRedisServer,
  startServiceProcess,
  WORKER_ENTRY,
} from '@live-captions/test-services';
import type { Redis } from 'ioredis';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `speech`: about 2.5 tokens per second of audio, so the decoder works as for real speech;
 * `test`: " test" for any audio (3 tokens), what the figures before issue 29 used.
 */
export const MODELS = {
  speech: 'ggml-synthetic-tiny-speech.bin',
  test: 'ggml-synthetic-tiny.bin',
} as const;
export type ModelName = keyof typeof MODELS;

/** `--model=speech|test` (default speech); exits on anything else. */
export function modelArg(): ModelName {
  const value = process.argv.find((a) => a.startsWith('--model='))?.split('=')[1] ?? 'speech';
  if (value in MODELS) return value as ModelName;
  console.error(`--model must be one of ${Object.keys(MODELS).join(', ')}, not "${value}"`);
  process.exit(2);
}

const ALL_BACKENDS = ['in-process', 'redis'] as const;
export type BackendKind = (typeof ALL_BACKENDS)[number];

/** `--backend=in-process|redis` runs one of them; both by default. */
export const BACKENDS: readonly BackendKind[] = (() => {
  const value = process.argv.find((a) => a.startsWith('--backend='))?.split('=')[1];
  if (value === undefined) return ALL_BACKENDS;
  if ((ALL_BACKENDS as readonly string[]).includes(value)) return [value as BackendKind];
  console.error(`--backend must be one of ${ALL_BACKENDS.join(', ')}, not "${value}"`);
  process.exit(2);
})();

/** Decode slots in all and whisper threads per slot. */
export interface EngineSize {
  slots: number;
  threads: number;
}

/** What the tables say of a backend of this size. */
export function describeBackend(kind: BackendKind, size: EngineSize): string {
  return kind === 'in-process'
    ? `in-process: ${size.slots} decode slot(s) x ${size.threads} thread(s)`
    : `redis: 2 worker processes x ${Math.ceil(size.slots / 2)} slot(s) x ${size.threads} thread(s)`;
}

function engineConfig(model: ModelName, size: EngineSize): EngineConfig {
  return engineConfigFor(join(root, 'models', MODELS[model]), {
    decodeSlots: size.slots,
    threadsPerSlot: size.threads,
    queueName: 'unused',
  });
}

export interface Backend {
  kind: BackendKind;
  queue: InferenceQueue;
  /** Redis only: the gateway's streams live there too, as in a deployment. */
  redis?: { client: Redis; queueName: string };
  close(): Promise<void>;
}

export async function inProcess(model: ModelName, size: EngineSize): Promise<Backend> {
  const queue = createInProcessQueue({ engine: engineConfig(model, size) });
  await queue.start();
  return { kind: 'in-process', queue, close: () => queue.close() };
}

/**
 * Two `services/worker` processes on a queue of their own, splitting the decode slots, and the
 * gateway's BullMQ producer. Redis is REDIS_URL when set, else a private redis-server on a free
 * port (never the shared 6379 by surprise).
 */
async function viaRedis(model: ModelName, size: EngineSize): Promise<Backend> {
  const server: RedisServer | undefined = process.env.REDIS_URL ? undefined : await startRedisServer();
  const url = server?.url ?? process.env.REDIS_URL!;
  const queueName = `bench-${randomUUID()}`;
  const workers: ServiceProcess[] = ['a', 'b'].map((id) =>
    startServiceProcess(WORKER_ENTRY, {
      REDIS_URL: url,
      CAPTION_QUEUE_NAME: queueName,
      CAPTION_MODEL: join(root, 'models', MODELS[model]),
      CAPTION_WORKERS: String(Math.ceil(size.slots / 2)),
      CAPTION_THREADS: String(size.threads),
      WORKER_ID: `bench-${id}`,
      LOG_LEVEL: 'warn',
    }),
  );
  const queue = createRedisQueue({ redisUrl: url, queueName });
  const close = async () => {
    await queue.close();
    await killAll(workers);
    await server?.stop();
  };
  try {
    await queue.start();
    const deadline = Date.now() + 120_000;
    while ((await queue.status()).workers.length < workers.length) {
      const dead = workers.find((worker) => worker.child.exitCode !== null);
      if (dead) throw new Error(`a bench worker exited:\n${dead.output()}`);
      if (Date.now() > deadline) throw new Error('the two bench workers were not ready within 120 s');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { kind: 'redis', queue, redis: { client: queue.client, queueName }, close };
}

export const startBackend = (kind: BackendKind, model: ModelName, size: EngineSize): Promise<Backend> =>
  kind === 'in-process' ? inProcess(model, size) : viaRedis(model, size);

export interface Gateway {
  port: number;
  close(): Promise<void>;
}

/** The speech gateway on `backend`; with a VAD, `/v1/realtime` too. */
export async function startGateway(backend: Backend, vad?: VadSource): Promise<Gateway> {
  const config = {
    ...loadConfig({ CAPTION_RELAY_TOKENS_FILE: '/nonexistent' }),
    maxStreams: 256,
    httpLimit: 4096,
    queueTimeoutSeconds: 120,
  };
  const streams = backend.redis
    ? createRedisStreamStore({
        client: backend.redis.client,
        namespace: backend.redis.queueName,
        maxStreams: config.maxStreams,
      })
    : undefined;
  const { app, realtime } = createApp({
    config,
    queue: backend.queue,
    logger: createLogger('speech', { level: 'warn' }),
    ...(streams ? { streamStore: streams } : {}),
    ...(vad ? { vad } : {}),
  });
  const server = app.listen(0, '127.0.0.1');
  if (vad) realtime.attach(server);
  const port = await listening(server);
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
