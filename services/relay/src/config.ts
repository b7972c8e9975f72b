import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { apiKeyProblem, parseOriginList, trustedProxiesVar } from '@live-captions/http';
import {
  ConfigError,
  intVar,
  parseEnv,
  portVar,
  postgresUrlVar,
  redisPrefixVar,
  redisUrlVar,
  secretVar,
  withCaptionLocalEnv,
} from '@live-captions/runtime';
import { z } from 'zod';

/** Process settings of the relay (environment). The rooms, tokens and limits are in the config file. */
export const relayEnvSchema = z.object({
  /** Listen address; 0.0.0.0 in a container. */
  RELAY_BIND: z.string().min(1).default('127.0.0.1'),
  RELAY_PORT: portVar().default(8080),
  /** Path of the private configuration. */
  CAPTION_RELAY_CONFIG: z.string().min(1).default('secrets/relay.private.json'),
  /** Comma-separated addresses or CIDR ranges of reverse proxies whose X-Forwarded-For is believed. */
  RELAY_TRUSTED_PROXIES: trustedProxiesVar().default(''),
  /** This node's name in /health, /metrics and logs; default: host name and process id. */
  RELAY_NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1-64 letters, digits, ., _ or -' })
    .optional(),
  /** Prefix of the relay's Redis keys, so that several relay clusters can share one Redis. */
  RELAY_REDIS_PREFIX: redisPrefixVar().default('relay:'),
  /** How captions reach the other nodes: blocking stream reads (default) or pub/sub. */
  RELAY_REDIS_FANOUT: z.enum(['stream', 'pubsub']).default('stream'),
  /** Set: cluster mode on this Redis. Never logged or echoed (it may hold a password). */
  REDIS_URL: redisUrlVar().optional(),
  /**
   * Where the caption rooms made at runtime (`/rooms`) are kept: PostgreSQL (several relay
   * nodes share it) ... */
  DATABASE_URL: postgresUrlVar().optional(),
  /** ... or, without DATABASE_URL, an embedded PGlite here (one relay). Neither: file rooms only. */
  RELAY_DATA_DIR: z.string().min(1).optional(),
  /** The rooms API's service access token (the gateway's); unset: loopback callers only. */
  CAPTION_API_KEY: secretVar(
    z.string().superRefine((value, ctx) => {
      const problem = apiKeyProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ).optional(),
  /** How often a node reads the rooms' version: other nodes' changes reach it within this. */
  RELAY_ROOMS_POLL_MS: intVar(100, 10_000).default(1000),
  /**
   * Browser origins allowed besides the config file's `origins` (comma-separated, the format of
   * the gateway's CAPTION_ALLOWED_ORIGINS): `pnpm start` adds the UI's and the capture page's
   * when their ports are moved, without rewriting the generated file.
   */
  RELAY_ALLOWED_ORIGINS: z.string().default(''),
});

export interface RelayEnv extends Omit<z.infer<typeof relayEnvSchema>, 'RELAY_ALLOWED_ORIGINS'> {
  RELAY_NODE_ID: string;
  REDIS_URL: string | undefined;
  /** RELAY_ALLOWED_ORIGINS, parsed. */
  allowedOrigins: string[];
}

const SECRETS_DIR = fileURLToPath(new URL('../../../secrets/', import.meta.url));

/** The environment with `secrets/caption-local.env` (CAPTION_LOCAL_ENV_FILE) under it: the service token. */
export function relayEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return withCaptionLocalEnv(env, SECRETS_DIR);
}

export function loadRelayEnv(env: NodeJS.ProcessEnv = process.env): RelayEnv {
  const { RELAY_ALLOWED_ORIGINS, ...values } = parseEnv(relayEnvSchema, env);
  const issues: string[] = [];
  const allowedOrigins = [...parseOriginList('RELAY_ALLOWED_ORIGINS', RELAY_ALLOWED_ORIGINS, issues)];
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    ...values,
    RELAY_NODE_ID: values.RELAY_NODE_ID ?? `${hostname()}-${process.pid}`.slice(0, 64),
    REDIS_URL: values.REDIS_URL,
    allowedOrigins,
  };
}

/** The config file's settings with RELAY_ALLOWED_ORIGINS added to its origins (each once). */
export function withEnvOrigins<T extends { origins: string[] }>(
  config: T,
  env: Pick<RelayEnv, 'allowedOrigins'>,
): T {
  return { ...config, origins: [...new Set([...config.origins, ...env.allowedOrigins])] };
}

/** Where a Redis URL points, without its credentials: for logs. */
export function redisTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}
