import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { DEFAULT_QUEUE_NAME } from '@live-captions/protocol';
import { flagVar, intVar, parseEnv } from '@live-captions/runtime';
import { modelSettings } from '@live-captions/whisper-models';
import { z } from 'zod';
import { WATCHDOG_MS } from './engine/watchdog.js';

/** Engine settings shared by the worker process and the gateway's in-process worker. */
export interface EngineConfig {
  /** A catalog name (`base`, `tiny.en`, ...) or a path to a ggml file. */
  model: string;
  /** CAPTION_MODEL_DIR, resolved by @live-captions/whisper-models (relative to the repository root). */
  modelDir: string;
  /** CAPTION_MODEL_BASE_URL: a mirror of the official models; undefined: the official repository. */
  modelBaseUrl?: string | undefined;
  decodeSlots: number;
  threadsPerSlot: number;
  /** Undefined: 1 on CPU, 5 on GPU. */
  beamSize: number | undefined;
  /** Never download: the model file must already be there. */
  offline: boolean;
  queueName: string;
  watchdogMs: number;
  /**
   * CAPTION_VAD_MODEL: `silero` (`<modelDir>/ggml-silero-v6.2.0.bin`, downloaded like the
   * models unless offline) or a path to a Silero ggml file; unset: no VAD.
   */
  vadModel?: string | undefined;
}

const schema = z.object({
  CAPTION_WORKERS: intVar(1, 16).default(1),
  CAPTION_THREADS: intVar(1, 64).optional(),
  CAPTION_BEAM_SIZE: intVar(1, 8).optional(),
  CAPTION_OFFLINE: flagVar().default(false),
  CAPTION_QUEUE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be 1-64 letters, digits, _ or -' })
    .default(DEFAULT_QUEUE_NAME),
  CAPTION_VAD_MODEL: z.string().min(1).optional(),
});

/** Reads and validates the engine settings; throws ConfigError naming each wrong variable. */
export function loadEngineConfig(env: NodeJS.ProcessEnv = process.env): EngineConfig {
  const values = parseEnv(schema, env);
  const models = modelSettings(env);
  return {
    model: models.model,
    modelDir: models.modelDir,
    modelBaseUrl: models.baseUrl,
    decodeSlots: values.CAPTION_WORKERS,
    // Decodes are CPU-bound: split the cores between the concurrent decodes.
    threadsPerSlot:
      values.CAPTION_THREADS ?? Math.max(1, Math.floor(availableParallelism() / values.CAPTION_WORKERS)),
    beamSize: values.CAPTION_BEAM_SIZE,
    offline: values.CAPTION_OFFLINE,
    queueName: values.CAPTION_QUEUE_NAME,
    watchdogMs: WATCHDOG_MS,
    vadModel: values.CAPTION_VAD_MODEL,
  };
}

/**
 * Engine settings for a model file already on disk, with the defaults the environment would give
 * (one decode slot, no download, the default queue, the watchdog's limit): for code that runs an
 * engine without reading the environment, tests and benchmarks.
 */
export function engineConfigFor(modelPath: string, overrides: Partial<EngineConfig> = {}): EngineConfig {
  return {
    model: modelPath,
    modelDir: dirname(modelPath),
    decodeSlots: 1,
    threadsPerSlot: 1,
    beamSize: undefined,
    offline: true,
    queueName: DEFAULT_QUEUE_NAME,
    watchdogMs: WATCHDOG_MS,
    ...overrides,
  };
}
