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
import { WATCHDOG_MS } from '../engine/watchdog.js';
import { InferenceError, type InferenceQueue, type QueueStatus, type SubmitOptions } from '../queue.js';
import { enqueue } from './enqueue.js';
import { readLiveWorkers } from './heartbeat.js';
import { answerFromJobEvents } from './job-events.js';
import { keysFor } from './keys.js';
import { serialPasses } from './passes.js';
import { type PendingRequest, PendingRequests } from './pending.js';
import type { Producer } from './producer.js';
import { reconcilePass } from './reconcile.js';
import { armRequestDeadline } from './request-deadline.js';

export interface RedisQueueOptions {
  redisUrl: string;
  queueName: string;
  logger?: Logger;
  /** The workers' decode watchdog; with the queue deadline and a margin it bounds every request. */
  watchdogMs?: number;
}

/** Past the queue deadline and the watchdog, what a request may still wait (result delivery, a retry). */
const DEADLINE_MARGIN_MS = 15_000;

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
   * Redis (streams) goes through it too, so one outage is one pair of log lines.
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

  const producer: Producer = { redis, queue, keys: keysFor(options.queueName), pending, link, logger };
  answerFromJobEvents(events, pending, logger);
  // BullMQ's own connections come back a moment after ours: a pass that met one still
  // reconnecting is run again shortly, until every request is accounted for.
  const goOn = () => !closed && link.up;
  const reconcile = serialPasses(() => reconcilePass(producer, goOn), goOn);

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
        armRequestDeadline(producer, entry);
        enqueue(producer, entry).catch((error: unknown) => {
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
      // Jobs waiting to start: BullMQ keeps prioritized ones (all of ours: fair rooms) apart.
      const [workers, waiting] = await whileUp(() =>
        Promise.all([liveWorkers(), queue.getJobCountByTypes('waiting', 'prioritized')]),
      );
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
