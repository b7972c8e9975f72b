import type { RelaySettings } from '@live-captions/protocol';
import { ConfigError, readEnvFile } from '@live-captions/runtime';
import { parseRelaySettings } from '../domain/relay-settings.js';

/**
 * Reads `secrets/relay-tokens.env` once at start-up (tokens rotate by restarting). Undefined when
 * the file is absent (the endpoint then answers 404); a present but wrong file stops start-up.
 */
export function loadRelayTokens(path: string): RelaySettings | undefined {
  const vars = readEnvFile(path);
  if (vars === undefined) return undefined;
  const { settings, problems } = parseRelaySettings(vars);
  if (!settings) throw new ConfigError(problems.map((problem) => `${path}: ${problem}`));
  return settings;
}
