import { readFileSync } from 'node:fs';
import { parseRelayConfigText, type RelayConfig, RelayConfigError } from '../domain/relay-config.js';

/** Reads and validates the private configuration file. */
export function readRelayConfig(path: string): RelayConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const hint = code === 'ENOENT' ? ' (run `pnpm secrets:init`, or set CAPTION_RELAY_CONFIG)' : '';
    throw new RelayConfigError(path, [`(file): cannot read it: ${code ?? (error as Error).message}${hint}`]);
  }
  return parseRelayConfigText(text, path);
}
