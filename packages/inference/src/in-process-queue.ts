import type { EngineInfo, InferenceRequest, InferenceResult } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { EngineConfig } from './config.js';
import { EnginePool } from './engine/pool.js';
import { InferenceError, type InferenceQueue, type QueueStatus, type SubmitOptions } from './queue.js';

export interface InProcessQueueOptions {
  engine: EngineConfig;
  logger?: Logger;
}

/**
 * The embedded default: the worker's engine inside the gateway process, no Redis. Same FIFO,
 * deadline and failure semantics as the BullMQ backend.
 */
export function createInProcessQueue(options: InProcessQueueOptions): InferenceQueue {
  let pool: EnginePool | undefined;
  let starting: Promise<void> | undefined;
  let closed = false;

  async function start(): Promise<void> {
    pool = await EnginePool.fromConfig(options.engine, options.logger);
  }

  return {
    start() {
      starting ??= start();
      return starting;
    },

    async submit(
      request: InferenceRequest,
      audio: Float32Array,
      { startDeadline, onProgress }: SubmitOptions,
    ): Promise<InferenceResult> {
      if (!pool || closed) throw new InferenceError('unavailable', 'the engine is not ready');
      // The job's lines go to the gateway's logger with the request's correlation id.
      return pool.runJob(
        request,
        { enqueuedAt: Date.now(), startDeadline },
        () => audio,
        onProgress ? { onProgress } : {},
      );
    },

    async status(): Promise<QueueStatus> {
      if (!pool) return { workers: [], pending: 0 };
      return { workers: [pool.status('in-process')], pending: pool.pending };
    },

    async engine(): Promise<EngineInfo | undefined> {
      return pool?.info;
    },

    async close(): Promise<void> {
      closed = true;
      await starting?.catch(() => undefined);
      // The gateway closes after its shutdown grace: what still decodes was answered already.
      await pool?.close({ abortRunning: true });
    },
  };
}
