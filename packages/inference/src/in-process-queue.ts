import type { EngineInfo, InferenceRequest, InferenceResult } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import type { EngineConfig } from './config.js';
import { runInferenceJob } from './domain/run-job.js';
import { prepareModelFile } from './engine/model-file.js';
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
    const model = await prepareModelFile(options.engine, options.logger);
    pool = await EnginePool.start({
      modelPath: model.path,
      modelName: model.name,
      workers: options.engine.workers,
      threadsPerWorker: options.engine.threadsPerWorker,
      beamSize: options.engine.beamSize,
      watchdogMs: options.engine.watchdogMs,
      ...(options.logger ? { logger: options.logger } : {}),
    });
  }

  return {
    start() {
      starting ??= start();
      return starting;
    },

    async submit(
      request: InferenceRequest,
      audio: Float32Array,
      { startDeadline }: SubmitOptions,
    ): Promise<InferenceResult> {
      if (!pool || closed) throw new InferenceError('unavailable', 'the engine is not ready');
      const engine = pool;
      const enqueuedAt = Date.now();
      try {
        const result = await engine.withSlot(startDeadline, (slot) =>
          runInferenceJob(slot, request, audio, (Date.now() - enqueuedAt) / 1000),
        );
        engine.stats.completed++;
        return result;
      } catch (error) {
        if (!(error instanceof InferenceError) || error.code === 'inference_failed') engine.stats.failed++;
        throw error instanceof InferenceError ? error : new InferenceError('inference_failed', String(error));
      }
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
      await pool?.close();
    },
  };
}
