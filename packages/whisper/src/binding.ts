import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WhisperError } from './errors.js';
import type { NativeAddon } from './native-types.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

let cached: NativeAddon | undefined;

/**
 * Finds the compiled addon: an explicit path (WHISPER_ADDON_PATH, e.g. a CUDA build in an image),
 * else the package's own build. Loaded once per process.
 */
export function loadBinding(explicitPath = process.env.WHISPER_ADDON_PATH): NativeAddon {
  if (cached) return cached;
  const candidates = explicitPath
    ? [resolve(explicitPath)]
    : [join(packageDir, 'build', 'Release', 'whisper_addon.node')];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) {
    throw new WhisperError(
      'WHISPER_ADDON_MISSING',
      `whisper addon not found (looked in ${candidates.join(', ')}); build it with \`pnpm install\` or \`node packages/whisper/scripts/build-addon.mjs\``,
    );
  }
  cached = require(found) as NativeAddon;
  return cached;
}
