import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { captionLocalText } from './caption-local-file.js';
import { relayConfigText, secretsFromRelayConfig } from './relay-config-file.js';
import { generateSecrets, productionHosts, type RelaySecrets } from './relay-secrets.js';
import { relayTokensText, secretsFromTokens } from './relay-tokens-file.js';

/** The names of the files in a secrets folder. */
export const SECRET_FILES = {
  relayConfig: 'relay.private.json',
  relayTokens: 'relay-tokens.env',
  captionLocal: 'caption-local.env',
} as const;

/** Owner of the secret files when generated as root: the relay and speech images run as 1000:1000. */
export const SERVICE_UID = 1000;
export const SERVICE_GID = 1000;

export interface SecretsInitOptions {
  /** Folder of the secret files (`secrets/`). */
  dir: string;
  /** `.env.production`-style file whose CAPTURE_HOST, RELAY_HOST and UI_HOST are added. */
  envFile?: string;
  /** Whether to chown to 1000:1000 with mode 0640 (default: when running as root). */
  asRoot?: boolean;
}

export interface SecretsInitResult {
  written: string[];
  kept: string[];
}

const readEnv = (path: string) => parseEnv(readFileSync(path, 'utf8'));

/** Creates `path` (never replacing one): 0600, or 0640 owned by 1000:1000 as root. */
function writeSecretFile(path: string, text: string, asRoot: boolean): void {
  writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
  if (asRoot) {
    chownSync(path, SERVICE_UID, SERVICE_GID);
    chmodSync(path, 0o640);
  } else {
    chmodSync(path, 0o600);
  }
}

/**
 * Writes `relay.private.json`, `relay-tokens.env` and `caption-local.env` where they are missing.
 * When one relay file exists, the other is written from its rooms and tokens so that they match.
 */
export function initSecrets(options: SecretsInitOptions): SecretsInitResult {
  const asRoot = options.asRoot ?? process.getuid?.() === 0;
  const hosts = options.envFile ? productionHosts(readEnv(options.envFile)) : undefined;
  mkdirSync(options.dir, { recursive: true });
  const configPath = join(options.dir, SECRET_FILES.relayConfig);
  const tokensPath = join(options.dir, SECRET_FILES.relayTokens);
  const localPath = join(options.dir, SECRET_FILES.captionLocal);
  const result: SecretsInitResult = { written: [], kept: [] };

  const haveConfig = existsSync(configPath);
  const haveTokens = existsSync(tokensPath);
  let secrets: RelaySecrets | undefined;
  if (haveConfig && !haveTokens) {
    secrets = secretsFromRelayConfig(readFileSync(configPath, 'utf8'), hosts);
    if (!secrets) throw new Error(`${configPath} has fewer than two rooms; cannot derive ${tokensPath}`);
  } else if (!haveConfig && haveTokens) {
    secrets = secretsFromTokens(readEnv(tokensPath), hosts);
    if (!secrets) throw new Error(`${tokensPath} lacks room names or tokens; cannot derive ${configPath}`);
  } else if (!haveConfig) {
    secrets = generateSecrets(hosts);
  }

  const files: [string, boolean, () => string][] = [
    [configPath, haveConfig, () => relayConfigText(secrets!)],
    [tokensPath, haveTokens, () => relayTokensText(secrets!)],
    [localPath, existsSync(localPath), () => captionLocalText(hosts)],
  ];
  for (const [path, exists, text] of files) {
    if (exists) {
      result.kept.push(path);
      continue;
    }
    writeSecretFile(path, text(), asRoot);
    result.written.push(path);
  }
  return result;
}
