import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addonPathSetting } from './config.js';
import { WhisperError } from './errors.js';
import type { NativeAddon } from './native-types.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

let cached: NativeAddon | undefined;

/**
 * Finds the compiled addon: WHISPER_ADDON_PATH (e.g. a CUDA build in an image), else the
 * package's own build. Loaded once per process.
 */
export function loadBinding(): NativeAddon {
  if (cached) return cached;
  const explicit = addonPathSetting();
  const path = explicit ? resolve(explicit) : join(packageDir, 'build', 'Release', 'whisper_addon.node');
  if (!existsSync(path)) {
    throw new WhisperError(
      'WHISPER_ADDON_MISSING',
      `whisper addon not found (looked in ${path}); build it with \`pnpm install\` or \`node packages/whisper/scripts/build-addon.mjs\``,
    );
  }
  cached = require(path) as NativeAddon;
  return cached;
}
