import { randomUUID } from 'node:crypto';
import type { EngineInfo, InferenceJob, InferenceRequest, InferenceResult } from '@live-captions/protocol';
import {
  BLOCKING,
  bullConnection,
  FAIL_FAST,
  isConnectionError,
  logOtherErrors,
  settleWithin,
  watchConnection,
} from '@live-captions/redis';
import type { Logger } from '@live-captions/runtime';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { samplesToBuffer } from '../domain/pcm.js';
import { WATCHDOG_MS } from '../engine/watchdog.js';
import { InferenceError, type InferenceQueue, type QueueStatus, type SubmitOptions } from '../queue.js';
import { decodeFailure } from './failure.js';
import { readLiveWorkers } from './heartbeat.js';
import { answerFromJobEvents } from './job-events.js';
import { keysFor } from './keys.js';
import { serialPasses } from './passes.js';
import { type PendingRequest, PendingRequests } from './pending.js';

export interface RedisQueueOptions {
  redisUrl: string;
  queueName: string;
  logger?: Logger;
  /** The workers' decode watchdog; with the queue deadline and a margin it bounds every request. */
  watchdogMs?: number;
}

/** Past the queue deadline and the watchdog, what a request may still wait (result delivery, a retry). */
const DEADLINE_MARGIN_MS = 15_000;
/** Audio outlives its request's deadline by this much, so a (re)started job never finds it missing. */
const AUDIO_GRACE_MS = 30_000;

/**
 * The gateway's side of the BullMQ backend: jobs go to Redis, workers on any host decode them,
 * results come back through the queue's event stream. Audio travels as a binary Redis value.
 *
 * Faults: the connection state is followed from ioredis events, so while Redis is unreachable new
 * jobs fail at once (`unavailable`); requests in flight keep their audio and are reconciled when
 * Redis is back (answered from the job's stored outcome, or submitted again when Redis lost the
 * job), and each is answered by its deadline in any case.
 */
export interface RedisInferenceQueue extends InferenceQueue {
  /**
   * The gateway's fail-fast connection, followed for the health state: other gateway state in
   * Redis (stream sessions) goes through it too, so one outage is one pair of log lines.
   */
  readonly client: Redis;
  /**
   * The BullMQ producer itself, for ops views that read the queue (the gateway's read-only
   * queue board); requests still go through {@link InferenceQueue.submit} only.
   */
  readonly bullQueue: Queue<InferenceJob, InferenceResult>;
}

export function createRedisQueue(options: RedisQueueOptions): RedisInferenceQueue {
  const { logger } = options;
  const keys = keysFor(options.queueName);
  const watchdogMs = options.watchdogMs ?? WATCHDOG_MS;
  const redis = new Redis(options.redisUrl, { ...FAIL_FAST, lazyConnect: true });
  const queue = new Queue<InferenceJob, InferenceResult>(options.queueName, {
    connection: bullConnection(options.redisUrl, FAIL_FAST),
  });
  const events = new QueueEvents(options.queueName, {
    connection: bullConnection(options.redisUrl, BLOCKING),
  });
  const pending = new PendingRequests();
  let closed = false;

  const link = watchConnection(redis, {
    logger,
    name: 'gateway',
    onChange: (up) => {
      if (up) void reconcile();
    },
  });
  logOtherErrors(queue, logger, 'queue');
  logOtherErrors(events, logger, 'queue-events');

  answerFromJobEvents(events, pending, logger);

  const unreachable = () =>
    new InferenceError('unavailable', `redis unreachable: ${link.reason ?? 'not connected'}`);

  /** Runs Redis reads, or fails as `unavailable` (also when the connection drops under them). */
  async function whileUp<T>(read: () => Promise<T>): Promise<T> {
    if (!link.up) throw unreachable();
    try {
      return await read();
    } catch {
      throw unreachable();
    }
  }

  const liveWorkers = () => readLiveWorkers(redis, options.queueName);

  /** At its start deadline a job still waiting is removed, so it can never run after its 429. */
  function armStartDeadline(entry: PendingRequest, startDeadline: number): void {
    const jobId = entry.jobId;
    const timer = setTimeout(
      async () => {
        if (!pending.waiting(entry)) return;
        try {
          const job = await queue.getJob(jobId);
          // A job that started once and went back to waiting (its worker died) is being retried.
          if (job && job.attemptsStarted === 0 && (await job.isWaiting())) {
            await job.remove();
            pending.settle(entry);
            await redis.del(keys.audio(jobId));
            entry.reject(
              new InferenceError('queue_timeout', 'the job did not start before its queue deadline'),
            );
          }
        } catch {
          // Taken by a worker at the last moment (locked), or Redis is down: the outcome comes
          // with the job's events, a reconciliation, or the request deadline.
        }
      },
      Math.max(0, startDeadline - Date.now()),
    );
    entry.timers.push(timer);
  }

  /** Puts the request's audio and job into Redis under `entry.jobId`. */
  async function enqueue(entry: PendingRequest): Promise<void> {
    const startDeadline = Math.min(Date.now() + entry.queueTimeoutMs, entry.deadline);
    const data: InferenceJob = {
      ...entry.request,
      enqueuedAt: Date.now(),
      startDeadline,
      samples: entry.audio.length,
    };
    pending.add(entry);
    armStartDeadline(entry, startDeadline);
    await redis.set(
      keys.audio(entry.jobId),
      samplesToBuffer(entry.audio),
      'PX',
      Math.max(1, entry.deadline - Date.now()) + AUDIO_GRACE_MS,
    );
    await queue.add('decode', data, {
      jobId: entry.jobId,
      // A worker's failure is final (no retry); a worker's death is retried once through the
      // stalled-job check (see the worker's maxStalledCount).
      attempts: 1,
      removeOnComplete: { age: 60 },
      removeOnFail: { age: 60 },
    });
  }

  /**
   * After a reconnection: a job Redis still has answers through its events (or its stored
   * outcome if the event went by while we were away); a job Redis lost is submitted again.
   */
  // BullMQ's own connections come back a moment after ours: a pass that met one still
  // reconnecting is run again shortly, until every request is accounted for.
  const reconcile = serialPasses(reconcilePass, () => !closed && link.up);

  /** False when some request could not be checked (its connection failed again). */
  async function reconcilePass(): Promise<boolean> {
    let complete = true;
    for (const entry of pending.all()) {
      if (closed || !link.up) return false;
      try {
        const job = await queue.getJob(entry.jobId);
        if (job) {
          const state = await job.getState();
          if (state === 'completed') {
            pending.settle(entry);
            entry.resolve(job.returnvalue);
          } else if (state === 'failed') {
            pending.settle(entry);
            entry.reject(decodeFailure(job.failedReason));
          }
          continue;
        }
        const lost = entry.jobId;
        for (const timer of entry.timers) clearTimeout(timer);
        entry.timers = [armRequestDeadline(entry)];
        pending.rekey(entry, randomUUID());
        logger?.warn(
          { jobId: entry.jobId, lostJobId: lost, correlationId: entry.request.correlationId },
          'job resubmitted: Redis lost it',
        );
        await enqueue(entry);
      } catch {
        complete = false;
      }
    }
    return complete;
  }

  function armRequestDeadline(entry: PendingRequest): NodeJS.Timeout {
    return setTimeout(
      () => {
        if (!pending.waiting(entry)) return;
        pending.settle(entry);
        logger?.warn(
          { jobId: entry.jobId, correlationId: entry.request.correlationId, redis: link.up ? 'up' : 'down' },
          'request deadline passed without a result',
        );
        entry.reject(new InferenceError('unavailable', 'no result before the request deadline'));
      },
      Math.max(0, entry.deadline - Date.now()),
    );
  }

  return {
    client: redis,
    bullQueue: queue,

    async start() {
      await Promise.all([redis.connect(), queue.waitUntilReady(), events.waitUntilReady()]);
    },

    async submit(
      request: InferenceRequest,
      audio: Float32Array,
      { startDeadline, onProgress }: SubmitOptions,
    ) {
      if (closed) throw new InferenceError('unavailable', 'the queue is closed');
      if (!link.up) throw unreachable();
      const queueTimeoutMs = Math.max(0, startDeadline - Date.now());
      return new Promise<InferenceResult>((resolve, reject) => {
        const entry: PendingRequest = {
          jobId: randomUUID(),
          request,
          audio,
          queueTimeoutMs,
          deadline: Date.now() + queueTimeoutMs + watchdogMs + DEADLINE_MARGIN_MS,
          resolve,
          reject,
          timers: [],
          onProgress,
          relayed: 0,
        };
        entry.timers.push(armRequestDeadline(entry));
        enqueue(entry).catch((error: unknown) => {
          if (!pending.waiting(entry)) return;
          // Redis went away during the write: the request is admitted and its audio is here,
          // so it is submitted again when Redis is back (or answered by its deadline).
          if (isConnectionError(error) && !closed) {
            if (link.up) void reconcile();
            return;
          }
          pending.settle(entry);
          reject(new InferenceError('unavailable', `redis refused the job: ${(error as Error).message}`));
        });
      });
    },

    async status(): Promise<QueueStatus> {
      const [workers, waiting] = await whileUp(() => Promise.all([liveWorkers(), queue.getWaitingCount()]));
      return { workers: workers.filter((worker) => worker.ready), pending: waiting };
    },

    async engine(): Promise<EngineInfo | undefined> {
      return (await whileUp(liveWorkers)).find((worker) => worker.ready)?.engine;
    },

    async close() {
      closed = true;
      for (const entry of pending.all()) {
        pending.settle(entry);
        entry.reject(new InferenceError('unavailable', 'the gateway is shutting down'));
      }
      // With Redis away a graceful close would wait for it: disconnect instead.
      await settleWithin(
        link.up
          ? Promise.allSettled([events.close(), queue.close()])
          : Promise.allSettled([events.disconnect(), queue.disconnect()]),
      );
      redis.disconnect();
    },
  };
}
