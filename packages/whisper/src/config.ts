/** The only environment this package reads. */

/** WHISPER_ADDON_PATH: a specific compiled addon (e.g. a CUDA build in an image); unset: the package's own build. */
export function addonPathSetting(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.WHISPER_ADDON_PATH || undefined;
}
