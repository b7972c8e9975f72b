import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addonPathSetting, operatorOpenMpSetting } from './config.js';
import { WhisperError } from './errors.js';
import type { NativeAddon } from './native-types.js';
import { checkSpinCount, DEFAULT_SPIN_COUNT, libgompEnvironment, type SpinSetting } from './openmp.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

let cached: NativeAddon | undefined;
let spinCount = DEFAULT_SPIN_COUNT;
let spinConfigured = false;
let spinSetting: SpinSetting | undefined;

/**
 * Sets the spin count of this process's decode threads (see openmp.ts); only before the addon
 * first loads, as libgomp reads it then. Returns the setting in force: when the addon was
 * already loaded with another count, the old one (the caller should say so).
 */
export function setSpinCount(count: number): SpinSetting {
  checkSpinCount(count);
  if (spinSetting) return spinSetting;
  spinCount = count;
  spinConfigured = true;
  return libgompEnvironment(spinCount, true, operatorOpenMpSetting()).setting;
}

/** The spin setting the addon was loaded with, or will be. */
export function currentSpinSetting(): SpinSetting {
  return spinSetting ?? libgompEnvironment(spinCount, spinConfigured, operatorOpenMpSetting()).setting;
}

/**
 * Finds the compiled addon: WHISPER_ADDON_PATH (e.g. a CUDA build in an image), else the
 * package's own build. Loaded once per process, with libgomp's spin count in the environment
 * while it loads (libgomp reads it then, and only then); the variable is removed again so that
 * child processes (ffmpeg, a whisper-cli) keep their own defaults.
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
  const { variables, setting } = libgompEnvironment(spinCount, spinConfigured, operatorOpenMpSetting());
  Object.assign(process.env, variables);
  try {
    cached = require(path) as NativeAddon;
  } finally {
    for (const name of Object.keys(variables)) delete process.env[name];
  }
  spinSetting = setting;
  return cached;
}
