import { randomUUID } from 'node:crypto';
import type {
  EngineInfo,
  InferenceJob,
  InferenceRequest,
  InferenceResult,
  WorkerStatus,
} from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { samplesToBuffer } from '../domain/pcm.js';
import { InferenceError, type InferenceQueue, type QueueStatus, type SubmitOptions } from '../queue.js';
import { decodeFailure } from './failure.js';
import { keysFor } from './keys.js';

export interface RedisQueueOptions {
  redisUrl: string;
  queueName: string;
  logger?: Logger;
}

interface Pending {
  resolve: (result: InferenceResult) => void;
  reject: (error: InferenceError) => void;
}

/** Audio outlives its job's deadline by this much, so a worker never finds it missing. */
const AUDIO_GRACE_MS = 120_000;

/**
 * The gateway's side of the BullMQ backend: jobs go to Redis, workers on any host decode them,
 * results come back through the queue's event stream. Audio travels as a binary Redis value.
 */
export function createRedisQueue(options: RedisQueueOptions): InferenceQueue {
  const keys = keysFor(options.queueName);
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: null, lazyConnect: true });
  const connection = { url: options.redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue<InferenceJob, InferenceResult>(options.queueName, { connection });
  const events = new QueueEvents(options.queueName, { connection });
  const pending = new Map<string, Pending>();
  let closed = false;

  events.on('completed', ({ jobId, returnvalue }) => {
    const waiter = pending.get(jobId);
    if (!waiter) return;
    pending.delete(jobId);
    waiter.resolve(returnvalue as unknown as InferenceResult);
  });
  events.on('failed', ({ jobId, failedReason }) => {
    const waiter = pending.get(jobId);
    if (!waiter) return;
    pending.delete(jobId);
    waiter.reject(decodeFailure(failedReason));
  });
  queue.on('error', (error) => options.logger?.error({ err: error }, 'queue connection error'));
  events.on('error', (error) => options.logger?.error({ err: error }, 'queue events connection error'));

  async function liveWorkers(): Promise<WorkerStatus[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', keys.workerPattern, 'COUNT', 100);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
    if (found.length === 0) return [];
    const values = await redis.mget(...found);
    return values
      .filter((value): value is string => value !== null)
      .map((value) => JSON.parse(value) as WorkerStatus)
      .sort((a, b) => a.startedAt - b.startedAt);
  }

  /** At the deadline a job still waiting is removed, so it can never run after its 429. */
  function armDeadline(jobId: string, startDeadline: number): NodeJS.Timeout {
    return setTimeout(
      async () => {
        const waiter = pending.get(jobId);
        if (!waiter) return;
        try {
          const job = await queue.getJob(jobId);
          if (job && (await job.isWaiting())) {
            await job.remove();
            pending.delete(jobId);
            await redis.del(keys.audio(jobId));
            waiter.reject(
              new InferenceError('queue_timeout', 'the job did not start before its queue deadline'),
            );
          }
        } catch {
          // The job was taken by a worker at the last moment (it is locked): its result will come.
        }
      },
      Math.max(0, startDeadline - Date.now()),
    );
  }

  return {
    async start() {
      await Promise.all([redis.connect(), queue.waitUntilReady(), events.waitUntilReady()]);
    },

    async submit(request: InferenceRequest, audio: Float32Array, { startDeadline }: SubmitOptions) {
      if (closed) throw new InferenceError('unavailable', 'the queue is closed');
      const jobId = randomUUID();
      const data: InferenceJob = { ...request, enqueuedAt: Date.now(), startDeadline, samples: audio.length };
      const result = new Promise<InferenceResult>((resolve, reject) =>
        pending.set(jobId, { resolve, reject }),
      );
      const timer = armDeadline(jobId, startDeadline);
      try {
        await redis.set(
          keys.audio(jobId),
          samplesToBuffer(audio),
          'PX',
          Math.max(0, startDeadline - Date.now()) + AUDIO_GRACE_MS,
        );
        // One attempt: a retried decode would run audio the gateway may already have answered.
        await queue.add('decode', data, {
          jobId,
          attempts: 1,
          removeOnComplete: { age: 60 },
          removeOnFail: { age: 60 },
        });
        return await result;
      } catch (error) {
        pending.delete(jobId);
        throw error instanceof InferenceError
          ? error
          : new InferenceError('unavailable', `queue unavailable: ${String(error)}`);
      } finally {
        clearTimeout(timer);
      }
    },

    async status(): Promise<QueueStatus> {
      const [workers, waiting] = await Promise.all([liveWorkers(), queue.getWaitingCount()]);
      return { workers: workers.filter((worker) => worker.ready), pending: waiting };
    },

    async engine(): Promise<EngineInfo | undefined> {
      return (await liveWorkers()).find((worker) => worker.ready)?.engine;
    },

    async close() {
      closed = true;
      await Promise.allSettled([events.close(), queue.close()]);
      redis.disconnect();
    },
  };
}
