import { modelFile } from './catalog.js';
import { modelSettings } from './config.js';

/**
 * Where `pnpm model:synthetic` wrote a synthetic test model: the models folder as the engine
 * resolves it (CAPTION_MODEL_DIR). Tests and benches name their model with this, never a path.
 */
export function syntheticModel(name: 'tiny' | 'tiny.en' | 'base'): string {
  return modelFile(`synthetic-${name}`, modelSettings().modelDir);
}
