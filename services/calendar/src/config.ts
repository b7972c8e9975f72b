import { parseHostList, trustedProxiesVar } from '@live-captions/http';
import { intVar, parseEnv, portVar, postgresUrlVar } from '@live-captions/runtime';
import { z } from 'zod';
import { isTimezone } from './domain/dates.js';

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
  DATABASE_URL: postgresUrlVar().optional(),
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
  CALENDAR_TRUSTED_PROXIES: trustedProxiesVar().default('loopback'),
  // The site's currency, as The Events Calendar's settings: costs without a symbol show it.
  CALENDAR_CURRENCY_SYMBOL: z.string().max(10, { message: 'must be at most 10 characters' }).default('$'),
  CALENDAR_CURRENCY_POSITION: z
    .enum(['prefix', 'postfix'], { message: 'must be prefix or postfix' })
    .default('prefix'),
  CALENDAR_CURRENCY_CODE: z
    .string()
    .regex(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 code such as USD' })
    .default('USD'),
  /**
   * Schedule imports from a URL (issue 41): `host:port` entries the import may call although
   * private or over plain http (the outputs service's OUTPUTS_ALLOWED_HOSTS rule).
   */
  CALENDAR_IMPORT_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      try {
        return new Set(parseHostList(value));
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  CALENDAR_IMPORT_MAX_BYTES: intVar(1024, 100 * 1024 * 1024).default(10 * 1024 * 1024),
  CALENDAR_IMPORT_TIMEOUT_MS: intVar(1000, 300_000).default(20_000),
  // How far ahead recurring events (RRULE) are expanded into occurrences.
  CALENDAR_IMPORT_HORIZON_DAYS: intVar(1, 3660).default(366),
  // How often each replica looks for subscriptions (imports `every` N minutes) that are due.
  CALENDAR_IMPORT_CHECK_MS: intVar(10, 3_600_000).default(30_000),
});

export type Config = z.infer<typeof configSchema>;

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => parseEnv(configSchema, env);
