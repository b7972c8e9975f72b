import { randomUUID } from 'node:crypto';
import { decodeFloat32 } from '@live-captions/audio';
import type { InferenceJob, InferenceResult } from '@live-captions/protocol';
import {
  BLOCKING,
  bullConnection,
  FAIL_FAST,
  logOtherErrors,
  settleWithin,
  watchConnection,
} from '@live-captions/redis';
import type { Logger } from '@live-captions/runtime';
import { UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { EngineConfig } from '../config.js';
import { EnginePool } from '../engine/pool.js';
import { InferenceError } from '../queue.js';
import { encodeFailure } from './failure.js';
import { HEARTBEAT_MS, HEARTBEAT_TTL_MS, JOB_LOCK_MS, keysFor, STALLED_CHECK_MS } from './keys.js';

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
  const redis = new Redis(options.redisUrl, { ...FAIL_FAST, lazyConnect: true });
  // Announce again as soon as Redis is back (a restart without persistence forgot the worker).
  const link = watchConnection(redis, {
    logger,
    name: 'worker',
    onChange: (up) => {
      if (up) announce().catch(() => undefined);
    },
  });

  async function process(job: {
    id?: string;
    data: InferenceJob;
    attemptsStarted: number;
    updateProgress(progress: object): Promise<void>;
  }): Promise<InferenceResult> {
    const jobId = job.id ?? '';
    const audioKey = keys.audio(jobId);
    // Every line of the job, the engine's and the watchdog's included, carries both ids.
    const log = logger?.child({ jobId, correlationId: job.data.correlationId });
    // A job started before and back from a dead worker is a retry: its start deadline is spent,
    // and its client is still waiting for it.
    const retry = job.attemptsStarted > 1;
    if (retry) log?.info('job retried: decoding again');
    const timing = retry ? { ...job.data, startDeadline: Number.POSITIVE_INFINITY } : job.data;
    try {
      return await pool.runJob(
        job.data,
        timing,
        async () => {
          const bytes = await redis.getBuffer(audioKey);
          if (!bytes)
            throw new InferenceError('inference_failed', 'the job audio expired before the job started');
          return decodeFloat32(bytes);
        },
        {
          // Offline decodes report segments as they come; the gateway relays them to a stream.
          // Best effort: a lost progress event only delays text the final result carries anyway.
          onProgress: (progress) => job.updateProgress(progress).catch(() => undefined),
          ...(log ? { logger: log } : {}),
        },
      );
    } catch (error) {
      // The engine logged the failure with the job's ids.
      throw new UnrecoverableError(encodeFailure(error as InferenceError));
    } finally {
      // Best effort: with Redis away the key expires on its own.
      await redis.del(audioKey).catch(() => undefined);
      // The figures changed (running, completed): /health should not wait for the next beat.
      await announceNow();
    }
  }

  const worker = new Worker<InferenceJob, InferenceResult>(options.engine.queueName, process, {
    connection: bullConnection(options.redisUrl, BLOCKING),
    name: id,
    concurrency: options.engine.decodeSlots,
    // Decodes run on native threads, so the event loop renews the lock every JOB_LOCK_MS / 2
    // while one runs; a worker that dies stops renewing, and within JOB_LOCK_MS +
    // STALLED_CHECK_MS another worker's check puts its job back in the queue. A job that stalls
    // a second time has killed two workers: it fails as poison instead of looping.
    lockDuration: JOB_LOCK_MS,
    stalledInterval: STALLED_CHECK_MS,
    maxStalledCount: 1,
  });
  logOtherErrors(worker, logger, 'worker-jobs');
  worker.on('stalled', (jobId) =>
    logger?.warn({ jobId }, 'job stalled: its worker stopped; back in the queue'),
  );

  async function announce(): Promise<void> {
    await redis.set(keys.worker(id), JSON.stringify(pool.status(id)), 'PX', HEARTBEAT_TTL_MS);
  }
  let closing = false;
  /** Announces on a state change; while Redis is away the connection's state lines tell it. */
  async function announceNow(): Promise<void> {
    if (link.up && !closing) await announce().catch(() => undefined);
  }
  await Promise.all([redis.connect(), worker.waitUntilReady()]);
  await announce();
  const heartbeat = setInterval(() => void announceNow(), HEARTBEAT_MS);
  logger?.info({ workerId: id, queue: options.engine.queueName }, 'worker ready');

  return {
    id,
    pool,
    async close() {
      closing = true;
      clearInterval(heartbeat);
      if (link.up) {
        await redis.del(keys.worker(id)).catch(() => undefined);
        await worker.close();
        // An announcement already under way when closing began may have landed after the first.
        await redis.del(keys.worker(id)).catch(() => undefined);
      } else {
        // A graceful close would wait for Redis; running decodes could not report anyway.
        await settleWithin(worker.close(true));
      }
      await pool.close();
      redis.disconnect();
      logger?.info({ workerId: id }, 'worker stopped');
    },
  };
}
