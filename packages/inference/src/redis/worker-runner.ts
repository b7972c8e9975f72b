import { randomUUID } from 'node:crypto';
import type { InferenceJob, InferenceResult } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import { UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { EngineConfig } from '../config.js';
import { bufferToSamples } from '../domain/pcm.js';
import { EnginePool } from '../engine/pool.js';
import { InferenceError } from '../queue.js';
import { encodeFailure } from './failure.js';
import { HEARTBEAT_MS, HEARTBEAT_TTL_MS, keysFor } from './keys.js';

export interface RedisWorkerOptions {
  redisUrl: string;
  engine: EngineConfig;
  logger?: Logger;
  /** Stable id for logs and the status key; default a random UUID. */
  id?: string;
}

export interface RunningWorker {
  id: string;
  pool: EnginePool;
  /** Stops taking jobs, finishes running ones, withdraws the announcement, frees the engine. */
  close(): Promise<void>;
}

/**
 * The inference worker: loads and warms up the model, then takes BullMQ jobs with one decode
 * state per concurrent job, and announces its figures through Redis while it lives.
 */
export async function startRedisWorker(options: RedisWorkerOptions): Promise<RunningWorker> {
  const id = options.id ?? randomUUID();
  const keys = keysFor(options.engine.queueName);
  const logger = options.logger;
  const pool = await EnginePool.fromConfig(options.engine, logger);
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null });

  async function process(job: { id?: string; data: InferenceJob }): Promise<InferenceResult> {
    const jobId = job.id ?? '';
    const audioKey = keys.audio(jobId);
    try {
      return await pool.runJob(job.data, job.data, async () => {
        const bytes = await redis.getBuffer(audioKey);
        if (!bytes)
          throw new InferenceError('inference_failed', 'the job audio expired before the job started');
        return bufferToSamples(bytes);
      });
    } catch (error) {
      const failure = error as InferenceError;
      logger?.warn({ jobId, code: failure.code, correlationId: job.data.correlationId }, 'job failed');
      throw new UnrecoverableError(encodeFailure(failure));
    } finally {
      await redis.del(audioKey);
    }
  }

  const worker = new Worker<InferenceJob, InferenceResult>(options.engine.queueName, process, {
    connection: { url: options.redisUrl, maxRetriesPerRequest: null },
    concurrency: options.engine.workers,
    // Longer than the decode watchdog: a lock must never expire under a running decode.
    lockDuration: options.engine.watchdogMs + 30_000,
    maxStalledCount: 0,
  });
  worker.on('error', (error) => logger?.error({ err: error }, 'worker connection error'));

  async function announce(): Promise<void> {
    await redis.set(keys.worker(id), JSON.stringify(pool.status(id)), 'PX', HEARTBEAT_TTL_MS);
  }
  await worker.waitUntilReady();
  await announce();
  const heartbeat = setInterval(() => {
    announce().catch((error: unknown) => logger?.error({ err: error }, 'heartbeat failed'));
  }, HEARTBEAT_MS);
  logger?.info({ workerId: id, queue: options.engine.queueName }, 'worker ready');

  return {
    id,
    pool,
    async close() {
      clearInterval(heartbeat);
      await redis.del(keys.worker(id));
      await worker.close();
      await pool.close();
      redis.disconnect();
      logger?.info({ workerId: id }, 'worker stopped');
    },
  };
}
