/**
 * Test harness: real inference backends (in-process engine, or BullMQ on the local Redis with a
 * real worker) on the synthetic models, and a gateway listening on port 0 (raw uploads held open
 * half-way: ./uploads.ts).
 */

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createInProcessQueue,
  createRedisQueue,
  type EngineConfig,
  engineConfigFor,
  type InferenceQueue,
  type QueueStatus,
  type RedisInferenceQueue,
  startRedisWorker,
} from '@live-captions/inference';
import type { EngineInfo, InferenceRequest, InferenceResult } from '@live-captions/protocol';
import { listening } from '@live-captions/runtime';
import { runRedisUrl } from '@live-captions/test-services';
import { audioDir } from '@live-captions/test-services/fixtures';
import { Redis } from 'ioredis';
import { type AppOptions, createApp, type SpeechApp } from '../../src/app.js';
import { loadConfig, type SpeechConfig } from '../../src/config.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export { audioDir };
export const REDIS_URL = runRedisUrl();
export const API_KEY = 'test-key-0123456789abcdefghij';

export const readAudio = (file: string) => readFileSync(join(audioDir, file));

/** A synthetic model: ggml-synthetic-<name>.bin (`pnpm model:synthetic`). */
export type ModelName =
  | 'tiny'
  | 'tiny.en'
  | 'base'
  | 'tiny-hallucination'
  | 'tiny-loop'
  | 'tiny-speech'
  | 'base-speech';

export function engineConfig(model: ModelName, overrides: Partial<EngineConfig> = {}): EngineConfig {
  return engineConfigFor(join(repoRoot, 'models', `ggml-synthetic-${model}.bin`), {
    queueName: `speech-test-${randomUUID()}`,
    ...overrides,
  });
}

export interface Backend {
  name: 'in-process' | 'redis';
  queue: InferenceQueue;
  close(): Promise<void>;
}

export async function inProcessBackend(
  model: ModelName = 'tiny',
  workers = 1,
  overrides: Partial<EngineConfig> = {},
): Promise<Backend> {
  const queue = createInProcessQueue({ engine: engineConfig(model, { decodeSlots: workers, ...overrides }) });
  await queue.start();
  return { name: 'in-process', queue, close: () => queue.close() };
}

/** BullMQ producer plus one real worker (the package's worker runner) on a fresh queue name. */
export async function redisBackend(
  model: ModelName = 'tiny',
  workers = 1,
  overrides: Partial<EngineConfig> = {},
): Promise<Backend & { queue: RedisInferenceQueue }> {
  const engine = engineConfig(model, { decodeSlots: workers, ...overrides });
  const worker = await startRedisWorker({ redisUrl: REDIS_URL, engine });
  const queue = createRedisQueue({ redisUrl: REDIS_URL, queueName: engine.queueName });
  await queue.start();
  return {
    name: 'redis',
    queue,
    async close() {
      await queue.close();
      await worker.close();
      await deleteKeys([`bull:${engine.queueName}:*`, `captions:${engine.queueName}:*`]);
    },
  };
}

export function startBackend(
  name: Backend['name'],
  model: ModelName = 'tiny',
  workers = 1,
  overrides: Partial<EngineConfig> = {},
): Promise<Backend> {
  return name === 'redis'
    ? redisBackend(model, workers, overrides)
    : inProcessBackend(model, workers, overrides);
}

export async function deleteKeys(patterns: string[]): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        if (keys.length > 0) await redis.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

/**
 * Passes jobs to the real queue only when the test opens the gate, keeping each job's original
 * start deadline: holds a decode "queued" deterministically, and lets a deadline pass for real.
 */
export class GatedQueue implements InferenceQueue {
  private gate: Promise<void> = Promise.resolve();
  private openGate: () => void = () => undefined;
  /** Jobs that reached this wrapper (not necessarily the real queue yet). */
  submitted = 0;
  private arrivals: (() => void)[] = [];

  constructor(readonly inner: InferenceQueue) {}

  /** From now on, jobs wait until {@link open}. */
  hold(): void {
    this.gate = new Promise<void>((resolve) => {
      this.openGate = resolve;
    });
  }

  open(): void {
    this.openGate();
    this.gate = Promise.resolve();
  }

  /** Resolves once `count` jobs in total have reached the wrapper. */
  waitForSubmissions(count: number): Promise<void> {
    if (this.submitted >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (this.submitted >= count) resolve();
        else this.arrivals.push(check);
      };
      this.arrivals.push(check);
    });
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async submit(
    request: InferenceRequest,
    audio: Float32Array,
    options: { startDeadline: number },
  ): Promise<InferenceResult> {
    this.submitted += 1;
    for (const arrival of this.arrivals.splice(0)) arrival();
    await this.gate;
    return this.inner.submit(request, audio, options);
  }

  status(): Promise<QueueStatus> {
    return this.inner.status();
  }

  engine(): Promise<EngineInfo | undefined> {
    return this.inner.engine();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export function testConfig(overrides: Partial<SpeechConfig> = {}): SpeechConfig {
  return { ...loadConfig({ CAPTION_RELAY_TOKENS_FILE: '/nonexistent/relay-tokens.env' }), ...overrides };
}

export interface RunningGateway extends SpeechApp {
  base: string;
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function startGateway(
  options: Partial<AppOptions> & { queue: InferenceQueue },
): Promise<RunningGateway> {
  const speech = createApp({ config: testConfig(), ...options });
  const server = speech.app.listen(0, '127.0.0.1');
  speech.realtime.attach(server);
  const port = await listening(server);
  return {
    ...speech,
    server,
    port,
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until `check` holds, polling; for states reached by another connection. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
