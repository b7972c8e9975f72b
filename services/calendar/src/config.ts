import { isIP } from 'node:net';
import { intVar, parseEnv, portVar } from '@live-captions/runtime';
import { z } from 'zod';
import { isTimezone } from './domain/dates.js';

/** Express's named ranges, besides addresses and CIDR ranges. */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** A comma-separated `trust proxy` list as express (proxy-addr) reads it. */
function isTrustList(value: string): boolean {
  return value.split(',').every((raw) => {
    const entry = raw.trim();
    if (PROXY_NAMES.has(entry)) return true;
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return false;
    if (bits === undefined) return true;
    const prefix = Number(bits);
    return /^\d+$/.test(bits) && prefix <= (family === 4 ? 32 : 128);
  });
}

export const configSchema = z.object({
  CALENDAR_BIND: z.string().default('127.0.0.1'),
  CALENDAR_PORT: portVar().default(8082),
  CALENDAR_REST_ROOT: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)*$/, { message: 'must be a path like /wp-json (no trailing slash)' })
    .default('/wp-json'),
  CALENDAR_TIMEZONE: z
    .string()
    .refine(isTimezone, { message: 'must be an IANA timezone such as Europe/Paris' })
    .default('UTC'),
  CALENDAR_TOKENS_FILE: z.string().optional(),
  DATABASE_URL: z.string().url({ message: 'must be a postgres:// URL' }).optional(),
  CALENDAR_DATA_DIR: z.string().default('./data/calendar'),
  CALENDAR_DB_POOL: intVar(1, 100).default(10),
  // Any one SQL statement: a pathological query answers 503 instead of holding a connection.
  CALENDAR_STATEMENT_TIMEOUT_MS: intVar(0, 600_000).default(5000),
  CALENDAR_CACHE_TTL_MS: intVar(0, 600_000).default(1000),
  /**
   * Proxies whose X-Forwarded-Proto/-For are believed (express `trust proxy`): behind Traefik
   * the links the API writes must say https://. Addresses, CIDR ranges, loopback, linklocal,
   * uniquelocal; comma-separated.
   */
  CALENDAR_TRUSTED_PROXIES: z.string().default('loopback').refine(isTrustList, {
    message: 'must be comma-separated addresses, CIDR ranges, loopback, linklocal or uniquelocal',
  }),
});

export type Config = z.infer<typeof configSchema>;

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => parseEnv(configSchema, env);
