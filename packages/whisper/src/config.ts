/** The only environment this package reads. */
import type { OperatorOpenMp } from './openmp.js';

/** WHISPER_ADDON_PATH: a specific compiled addon (e.g. a CUDA build in an image); unset: the package's own build. */
export function addonPathSetting(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.WHISPER_ADDON_PATH || undefined;
}

/**
 * libgomp's own GOMP_SPINCOUNT and OMP_WAIT_POLICY, when the operator set them: they then win
 * over the spin count the engine is configured with (CAPTION_SPIN_COUNT).
 */
export function operatorOpenMpSetting(env: NodeJS.ProcessEnv = process.env): OperatorOpenMp {
  return {
    GOMP_SPINCOUNT: env.GOMP_SPINCOUNT || undefined,
    OMP_WAIT_POLICY: env.OMP_WAIT_POLICY || undefined,
  };
}
