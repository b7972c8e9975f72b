/**
 * The only environment this package reads: which model, where models live and where they come from. The
 * inference engine's config and the `pnpm model` scripts both take them from here.
 */
import { isAbsolute, resolve } from 'node:path';
import { repoRoot } from './catalog.js';

export interface ModelSettings {
  /** CAPTION_MODEL: a catalog name or a path to a ggml file; unset: `base`. */
  model: string;
  /** CAPTION_MODEL_DIR, absolute. */
  modelDir: string;
  /** CAPTION_MODEL_BASE_URL: a mirror laid out like the official repository; unset: the official one. */
  baseUrl: string | undefined;
}

/**
 * The one resolver of CAPTION_MODEL_DIR: an absolute path as it is; a relative one against the
 * repository root (where every pnpm command runs, whatever package's folder a process starts
 * in); unset: `<repo>/models`.
 */
export function resolveModelDir(value: string | undefined): string {
  if (!value) return resolve(repoRoot, 'models');
  return isAbsolute(value) ? value : resolve(repoRoot, value);
}

export function modelSettings(env: NodeJS.ProcessEnv = process.env): ModelSettings {
  return {
    model: env.CAPTION_MODEL || 'base',
    modelDir: resolveModelDir(env.CAPTION_MODEL_DIR),
    baseUrl: env.CAPTION_MODEL_BASE_URL || undefined,
  };
}
