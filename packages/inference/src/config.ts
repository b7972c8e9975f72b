import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { DEFAULT_QUEUE_NAME } from '@live-captions/protocol';
import { flagVar, intVar, numberVar, parseEnv } from '@live-captions/runtime';
import { MAX_SPIN_COUNT } from '@live-captions/whisper';
import { modelSettings } from '@live-captions/whisper-models';
import { z } from 'zod';
import { DEFAULT_GUARDS, type GuardSettings } from './domain/guards/index.js';
import { WATCHDOG_MS } from './engine/watchdog.js';

/** CAPTION_VAD_MODEL value that turns speech detection off for `/v1` and live windows. */
export const VAD_OFF = 'off';

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
  /**
   * CAPTION_SPIN_COUNT: how many times a decode thread spins at one of whisper.cpp's OpenMP
   * barriers before it sleeps; undefined: @live-captions/whisper's DEFAULT_SPIN_COUNT (see its
   * openmp.ts). 300000 is libgomp's own default.
   */
  spinCount?: number | undefined;
  /** Undefined: 1 on CPU, 5 on GPU. */
  beamSize: number | undefined;
  /** Never download: the model file must already be there. */
  offline: boolean;
  queueName: string;
  watchdogMs: number;
  /**
   * CAPTION_VAD_MODEL: `silero` (the default: `<modelDir>/ggml-silero-v6.2.0.bin`, downloaded
   * with the model unless offline; missing offline: a warning and no VAD) or a path to a Silero
   * ggml file; undefined (CAPTION_VAD_MODEL=off): no VAD.
   */
  vadModel?: string | undefined;
  /** The hallucination and loop guards; undefined: DEFAULT_GUARDS. */
  guards?: GuardSettings | undefined;
}

const schema = z.object({
  CAPTION_WORKERS: intVar(1, 16).default(1),
  CAPTION_THREADS: intVar(1, 64).optional(),
  CAPTION_SPIN_COUNT: intVar(0, MAX_SPIN_COUNT).optional(),
  CAPTION_BEAM_SIZE: intVar(1, 8).optional(),
  CAPTION_OFFLINE: flagVar().default(false),
  CAPTION_QUEUE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, { message: 'must be 1-64 letters, digits, _ or -' })
    .default(DEFAULT_QUEUE_NAME),
  CAPTION_VAD_MODEL: z.string().min(1).default('silero'),
  CAPTION_GUARD_NO_SPEECH: numberVar(0, 1).default(DEFAULT_GUARDS.noSpeechThreshold),
  CAPTION_GUARD_LOGPROB: numberVar(-20, 0).default(DEFAULT_GUARDS.logprobThreshold),
  CAPTION_GUARD_COMPRESSION: numberVar(1, 100).default(DEFAULT_GUARDS.compressionRatioThreshold),
  CAPTION_GUARD_PHRASES: flagVar().default(DEFAULT_GUARDS.phrases),
  CAPTION_GUARD_PHRASE_SPEECH_RATIO: numberVar(0, 1).default(DEFAULT_GUARDS.phraseSpeechRatio),
  CAPTION_GUARD_LOOPS: flagVar().default(DEFAULT_GUARDS.loops),
  CAPTION_GUARD_LOOP_REPEATS: intVar(2, 50).default(DEFAULT_GUARDS.loopRepeats),
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
    spinCount: values.CAPTION_SPIN_COUNT,
    beamSize: values.CAPTION_BEAM_SIZE,
    offline: values.CAPTION_OFFLINE,
    queueName: values.CAPTION_QUEUE_NAME,
    watchdogMs: WATCHDOG_MS,
    vadModel: values.CAPTION_VAD_MODEL === VAD_OFF ? undefined : values.CAPTION_VAD_MODEL,
    guards: {
      noSpeechThreshold: values.CAPTION_GUARD_NO_SPEECH,
      logprobThreshold: values.CAPTION_GUARD_LOGPROB,
      compressionRatioThreshold: values.CAPTION_GUARD_COMPRESSION,
      phrases: values.CAPTION_GUARD_PHRASES,
      phraseSpeechRatio: values.CAPTION_GUARD_PHRASE_SPEECH_RATIO,
      loops: values.CAPTION_GUARD_LOOPS,
      loopRepeats: values.CAPTION_GUARD_LOOP_REPEATS,
    },
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
