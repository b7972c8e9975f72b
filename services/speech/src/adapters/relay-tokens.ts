import type { RelaySettings } from '@live-captions/protocol';
import { ConfigError, readEnvFile } from '@live-captions/runtime';
import { parseRelaySettings } from '../domain/relay-settings.js';

/** Where the pages find the relay and the UI: the environment's wins over the file's. */
const ADDRESSES = ['RELAY_ADDRESS', 'RELAY_SITE'] as const;

/**
 * Reads `secrets/relay-tokens.env` once at start-up (tokens rotate by restarting). Undefined when
 * the file is absent (the endpoint then answers 404); a present but wrong file stops start-up.
 * RELAY_ADDRESS and RELAY_SITE set in `env` replace the file's, as the environment wins over
 * `caption-local.env`: `pnpm start` with the relay's or the UI's port moved hands out the
 * addresses it really uses, the generated file unchanged.
 */
export function loadRelayTokens(path: string, env: NodeJS.ProcessEnv = {}): RelaySettings | undefined {
  const file = readEnvFile(path);
  if (file === undefined) return undefined;
  const vars = { ...file };
  for (const name of ADDRESSES) if (env[name]) vars[name] = env[name];
  const { settings, problems } = parseRelaySettings(vars);
  if (!settings) throw new ConfigError(problems.map((problem) => `${path}: ${problem}`));
  return settings;
}
