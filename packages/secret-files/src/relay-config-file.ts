import { generateSecrets, type ProductionHosts, type RelaySecrets } from './relay-secrets.js';

/** Tokens of one room. */
export interface RoomTokens {
  read: string;
  write: string;
}

/**
 * `secrets/relay.private.json`, the relay's private configuration, as this package writes it.
 * The relay's reader validates the same shape (and optional `limits` an operator may add).
 */
export interface RelayConfigFile {
  origins: string[];
  rooms: Record<string, RoomTokens>;
}

export function relayConfigText(secrets: RelaySecrets): string {
  const { tokens } = secrets;
  const config: RelayConfigFile = {
    origins: secrets.origins,
    rooms: {
      [secrets.sourceRoom]: { read: tokens.sourceRead, write: tokens.sourceWrite },
      [secrets.outputRoom]: { read: tokens.outputRead, write: tokens.outputWrite },
    },
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** Secrets recovered from an existing relay.private.json (first room: source, second: output). */
export function secretsFromRelayConfig(text: string, hosts?: ProductionHosts): RelaySecrets | undefined {
  const parsed = JSON.parse(text) as Partial<RelayConfigFile>;
  const [source, output] = Object.entries(parsed.rooms ?? {});
  if (!source || !output) return undefined;
  const fresh = generateSecrets(hosts);
  return {
    ...fresh,
    origins: parsed.origins ?? fresh.origins,
    sourceRoom: source[0],
    outputRoom: output[0],
    tokens: {
      sourceRead: source[1].read,
      sourceWrite: source[1].write,
      outputRead: output[1].read,
      outputWrite: output[1].write,
    },
  };
}
