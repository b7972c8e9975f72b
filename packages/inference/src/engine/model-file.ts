import type { Logger } from '@live-captions/runtime';
import { ensureModel } from '@live-captions/whisper';
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
