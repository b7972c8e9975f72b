/**
 * The servers `pnpm bench speech` loads: an inference backend on the synthetic tiny model (the
 * in-process engine, or BullMQ on Redis with a worker in this process) and the speech gateway in
 * front of it, on a loopback port with the limits raised out of the way.
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
  startRedisWorker,
} from '@live-captions/inference';
import { listening } from '@live-captions/runtime';
import { createApp, loadConfig } from '@live-captions/speech/embedded';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Decode slots and whisper threads per slot of the engine. */
export interface EngineSize {
  workers: number;
  threads: number;
}

function engineConfig(queueName: string, size: EngineSize): EngineConfig {
  return engineConfigFor(join(root, 'models/ggml-synthetic-tiny.bin'), {
    decodeSlots: size.workers,
    threadsPerSlot: size.threads,
    queueName,
  });
}

export interface Backend {
  name: string;
  queue: InferenceQueue;
  close(): Promise<void>;
}

export async function inProcess(size: EngineSize): Promise<Backend> {
  const queue = createInProcessQueue({ engine: engineConfig('unused', size) });
  await queue.start();
  return { name: 'in-process', queue, close: () => queue.close() };
}

/** BullMQ producer plus one worker (the package's worker runner) in this process. */
export async function viaRedis(redisUrl: string, size: EngineSize): Promise<Backend> {
  const queueName = `bench-speech-${randomUUID()}`;
  const worker = await startRedisWorker({ redisUrl, engine: engineConfig(queueName, size) });
  const queue = createRedisQueue({ redisUrl, queueName });
  await queue.start();
  return {
    name: 'redis',
    queue,
    async close() {
      await queue.close();
      await worker.close();
    },
  };
}

export interface Gateway {
  port: number;
  close(): Promise<void>;
}

export async function startGateway(queue: InferenceQueue): Promise<Gateway> {
  const config = {
    ...loadConfig({ CAPTION_RELAY_TOKENS_FILE: '/nonexistent' }),
    maxStreams: 256,
    httpLimit: 4096,
    queueTimeoutSeconds: 120,
  };
  const { app } = createApp({ config, queue });
  const server = app.listen(0, '127.0.0.1');
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
