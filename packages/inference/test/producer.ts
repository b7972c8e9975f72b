/**
 * The gateway's producer units on the real private Redis of the jest global setup, without
 * `createRedisQueue` around them (no event stream, no reconciliation on reconnect): each test
 * drives one unit and reads Redis to see what it did.
 */
import type { InferenceJob, InferenceResult } from '@live-captions/protocol';
import { bullConnection, FAIL_FAST, watchConnection } from '@live-captions/redis';
import { runRedisUrl } from '@live-captions/test-services';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { InferenceError } from '../src/index.js';
import { keysFor } from '../src/redis/keys.js';
import { type PendingRequest, PendingRequests } from '../src/redis/pending.js';
import type { Producer } from '../src/redis/producer.js';
import { request, SYNTHETIC_ANSWER, seconds } from './fixtures.js';

export const REDIS_URL = runRedisUrl();

export interface TestProducer extends Producer {
  readonly queueName: string;
  /** A real BullMQ worker on this queue that decodes nothing: `process` decides each outcome. */
  startWorker(process: () => Promise<unknown>): Worker;
  /** Forgets the pending requests (stopping their timers), closes the workers, empties the queue. */
  close(): Promise<void>;
}

export async function startProducer(): Promise<TestProducer> {
  const queueName = `unit-${Math.random().toString(36).slice(2)}`;
  const redis = new Redis(REDIS_URL, { ...FAIL_FAST, lazyConnect: true });
  const link = watchConnection(redis, { name: 'test' });
  const queue = new Queue<InferenceJob, InferenceResult>(queueName, {
    connection: bullConnection(REDIS_URL, FAIL_FAST),
  });
  await Promise.all([redis.connect(), queue.waitUntilReady()]);
  const pending = new PendingRequests();
  const workers: Worker[] = [];
  return {
    queueName,
    redis,
    queue,
    keys: keysFor(queueName),
    pending,
    link,
    startWorker(process) {
      const worker = new Worker(queueName, process, {
        connection: bullConnection(REDIS_URL, { maxRetriesPerRequest: null }),
      });
      workers.push(worker);
      return worker;
    },
    async close() {
      for (const entry of pending.all()) pending.settle(entry);
      await Promise.all(workers.map((worker) => worker.close(true)));
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      redis.disconnect();
    },
  };
}

/** A pending request and how it was answered (a result, or the InferenceError it was rejected with). */
export function pendingRequest(timing: { queueTimeoutMs?: number; deadlineMs?: number } = {}): {
  entry: PendingRequest;
  outcome: Promise<InferenceResult | InferenceError>;
} {
  let entry!: PendingRequest;
  const outcome = new Promise<InferenceResult | InferenceError>((resolve) => {
    entry = {
      jobId: `job-${Math.random().toString(36).slice(2)}`,
      request: request({ correlationId: 'unit' }),
      audio: seconds(0.5),
      queueTimeoutMs: timing.queueTimeoutMs ?? 60_000,
      deadline: Date.now() + (timing.deadlineMs ?? 60_000),
      resolve,
      reject: resolve,
      timers: [],
      onProgress: undefined,
      relayed: 0,
    };
  });
  return { entry, outcome };
}

/** Whether `outcome` is settled after the pending timers and I/O have had `ms`. */
export async function settledWithin<T>(outcome: Promise<T>, ms: number): Promise<boolean> {
  const pending = Symbol('pending');
  const first = await Promise.race([
    outcome,
    new Promise((resolve) => setTimeout(() => resolve(pending), ms)),
  ]);
  return first !== pending;
}

/** A valid result, as a worker of this version answers. */
export const RESULT: InferenceResult = {
  ...SYNTHETIC_ANSWER,
  audioSeconds: 0.5,
  committedSeconds: 0.5,
  queueSeconds: 0,
  inferenceSeconds: 0.1,
};
