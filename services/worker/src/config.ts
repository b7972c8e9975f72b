import { hostname } from 'node:os';
import { type EngineConfig, loadEngineConfig } from '@live-captions/inference';
import { parseEnv, portVar, readAll, redisUrlVar } from '@live-captions/runtime';
import { z } from 'zod';

export interface WorkerConfig {
  redisUrl: string;
  /**
   * WORKER_ID, else the host name: a container's, which its health check (another process) finds
   * without being told. Several workers on one host need an id each.
   */
  workerId: string;
  engine: EngineConfig;
  /** Prometheus `/metrics` listener; port 0 turns it off. */
  metrics: { port: number; bind: string };
}

const schema = z.object({
  REDIS_URL: redisUrlVar('is required: the worker takes its jobs from Redis'),
  WORKER_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1-64 letters, digits, ., _ or -' })
    .optional(),
  WORKER_METRICS_PORT: portVar().default(9464),
  WORKER_METRICS_BIND: z.string().default('127.0.0.1'),
});

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const [values, engine] = readAll(
    () => parseEnv(schema, env),
    () => loadEngineConfig(env),
  );
  return {
    redisUrl: values.REDIS_URL,
    workerId: values.WORKER_ID ?? hostname(),
    engine,
    metrics: { port: values.WORKER_METRICS_PORT, bind: values.WORKER_METRICS_BIND },
  };
}
