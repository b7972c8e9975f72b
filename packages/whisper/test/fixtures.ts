import { fileURLToPath } from 'node:url';
import { readClip } from '@live-captions/test-services/clips';
import { audioDir } from '@live-captions/test-services/fixtures';
import { modelFile, modelSettings } from '@live-captions/whisper-models';

export { audioDir, readClip };

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** Synthetic test models written by `pnpm model:synthetic` (the root test script runs it first). */
export function syntheticModel(name: 'tiny' | 'tiny.en' | 'base'): string {
  return modelFile(`synthetic-${name}`, modelSettings().modelDir);
}
