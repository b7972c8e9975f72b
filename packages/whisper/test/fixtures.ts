import { fileURLToPath } from 'node:url';
import { readClip } from '@live-captions/test-services/clips';
import { audioDir } from '@live-captions/test-services/fixtures';

export { syntheticModel } from '@live-captions/whisper-models';
export { audioDir, readClip };

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
