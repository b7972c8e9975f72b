import { randomBytes } from 'node:crypto';

/** What the three secret files are made of, generated together so that the tokens match. */
export interface RelaySecrets {
  origins: string[];
  sourceRoom: string;
  outputRoom: string;
  tokens: { sourceRead: string; sourceWrite: string; outputRead: string; outputWrite: string };
  /** Relay WebSocket URL for the capture page's auto-fill. */
  relayAddress: string;
  /** UI base URL with trailing slash. */
  relaySite: string;
}

/** Hostnames of a production deployment (from `.env.production`). */
export interface ProductionHosts {
  CAPTURE_HOST: string;
  RELAY_HOST: string;
  UI_HOST: string;
}

export const LOOPBACK_ORIGINS = [
  'http://localhost:8765',
  'http://127.0.0.1:8765',
  'http://localhost:8081',
  'http://127.0.0.1:8081',
];
export const DEFAULT_SOURCE_ROOM = 'captions';
export const DEFAULT_OUTPUT_ROOM = 'captions-output';

/** 32 random bytes, base64url (43 characters). */
export const newToken = () => randomBytes(32).toString('base64url');

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(?::\d{1,5})?$/;

/** Checks the production hostnames; throws naming the wrong variable. */
export function productionHosts(env: Record<string, string | undefined>): ProductionHosts {
  const hosts = {} as ProductionHosts;
  for (const key of ['CAPTURE_HOST', 'RELAY_HOST', 'UI_HOST'] as const) {
    const value = env[key]?.trim();
    if (!value) throw new Error(`${key} is missing from the env file`);
    if (!HOSTNAME.test(value)) throw new Error(`${key}=${JSON.stringify(value)} is not a hostname`);
    hosts[key] = value.toLowerCase();
  }
  return hosts;
}

/** New secrets: loopback origins, plus the production hosts when given. */
export function generateSecrets(hosts?: ProductionHosts): RelaySecrets {
  const origins = [...LOOPBACK_ORIGINS];
  if (hosts) {
    for (const host of [hosts.CAPTURE_HOST, hosts.UI_HOST]) {
      const origin = `https://${host}`;
      if (!origins.includes(origin)) origins.push(origin);
    }
  }
  return {
    origins,
    sourceRoom: DEFAULT_SOURCE_ROOM,
    outputRoom: DEFAULT_OUTPUT_ROOM,
    tokens: {
      sourceRead: newToken(),
      sourceWrite: newToken(),
      outputRead: newToken(),
      outputWrite: newToken(),
    },
    relayAddress: hosts ? `wss://${hosts.RELAY_HOST}` : 'ws://localhost:8080/ws',
    relaySite: hosts ? `https://${hosts.UI_HOST}/` : 'http://localhost:8081/',
  };
}
