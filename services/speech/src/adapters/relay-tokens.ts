import type { RelayConfigResponse } from '@live-captions/protocol';
import { ConfigError, readEnvFile } from '@live-captions/runtime';
import { parseRelayConfig } from '../domain/relay-config.js';

/**
 * Reads `secrets/relay-tokens.env` once at start-up (tokens rotate by restarting). Undefined when
 * the file is absent (the endpoint then answers 404); a present but wrong file stops start-up.
 */
export function loadRelayTokens(path: string): RelayConfigResponse | undefined {
  const vars = readEnvFile(path);
  if (vars === undefined) return undefined;
  const { config, problems } = parseRelayConfig(vars);
  if (!config) throw new ConfigError(problems.map((problem) => `${path}: ${problem}`));
  return config;
}
