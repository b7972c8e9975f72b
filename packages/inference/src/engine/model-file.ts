import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from '@live-captions/runtime';
import { downloadModel, ensureModel, modelFile, SILERO_VAD } from '@live-captions/whisper-models';
import type { EngineConfig } from '../config.js';

export interface ModelFile {
  /** Name clients see. */
  name: string;
  path: string;
}

/**
 * Finds the configured model file; an official model is downloaded (checksummed) on first start
 * unless the engine is offline. A path that does not exist is an error, never a download.
 */
export async function prepareModelFile(config: EngineConfig, logger?: Logger): Promise<ModelFile> {
  const model = await ensureModel(config.model, {
    modelDir: config.modelDir,
    baseUrl: config.modelBaseUrl,
    offline: config.offline,
    onProgress: (event) => {
      if (event.type === 'retry') {
        // The reason is what an operator needs to tell a DNS or proxy problem from a flaky link.
        const { name, attempt, delayMs, reason } = event;
        logger?.warn(
          { event: 'retry', model: name, attempt, delayMs, reason },
          'model download failed; retrying',
        );
      } else if (event.type === 'start' || event.type === 'done') {
        logger?.info({ event: event.type, model: event.name }, 'model download');
      }
    },
  });
  return { name: model.name, path: model.path };
}

/**
 * The VAD model file of CAPTION_VAD_MODEL: `silero` is fetched (checksummed) on first start unless
 * offline; a path must exist. Undefined when no VAD is configured. With `optional` (the decode
 * slots' VAD, on by default), a `silero` file that cannot be had is one warning and no VAD, never a
 * failed start: decoding works without it, only unguarded.
 */
export async function prepareVadFile(
  config: EngineConfig,
  logger?: Logger,
  options: { optional?: boolean } = {},
): Promise<string | undefined> {
  const value = config.vadModel;
  if (value === undefined) return undefined;
  if (value !== SILERO_VAD.alias) return resolve(value);
  const path = modelFile(SILERO_VAD.name, config.modelDir);
  const unavailable = (reason: string): undefined => {
    if (!options.optional) throw new Error(reason);
    logger?.warn(
      { vadModel: value, reason },
      'VAD model unavailable: running without speech detection (noise may be captioned; CAPTION_VAD_MODEL=off silences this warning)',
    );
    return undefined;
  };
  if (config.offline) {
    if (!existsSync(path))
      return unavailable(`VAD model ${path} is missing (offline): run pnpm model silero`);
    return path;
  }
  return downloadModel(SILERO_VAD.name, {
    modelDir: config.modelDir,
    baseUrl: SILERO_VAD.baseUrl,
    expectedSha1: SILERO_VAD.sha1,
    onProgress: (event) => {
      if (event.type === 'start' || event.type === 'retry' || event.type === 'done') {
        logger?.info({ event: event.type, model: event.name }, 'model download');
      }
    },
  }).catch((error: unknown) =>
    unavailable(`VAD model download failed: ${error instanceof Error ? error.message : String(error)}`),
  );
}
