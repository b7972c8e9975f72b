import { fileURLToPath } from 'node:url';
import { parseOriginList, readApiKey } from '@live-captions/http';
import {
  ConfigError,
  intVar,
  parseEnvInto,
  portVar,
  postgresUrlVar,
  redisPrefixVar,
  redisUrlVar,
  relayUrlVar,
  withCaptionLocalEnv,
} from '@live-captions/runtime';
import { z } from 'zod';
import { parseHostList } from './domain/destination-url.js';

export const configSchema = z.object({
  OUTPUTS_BIND: z.string().min(1).default('127.0.0.1'),
  OUTPUTS_PORT: portVar().default(8083),
  /** The relay the output rooms are read from. */
  RELAY_URL: relayUrlVar().default('ws://127.0.0.1:8080/ws'),
  /** The relay's private configuration: the rooms of its file and their read/write tokens. */
  CAPTION_RELAY_CONFIG: z.string().min(1).default('secrets/relay.private.json'),
  DATABASE_URL: postgresUrlVar().optional(),
  OUTPUTS_DATA_DIR: z.string().min(1).default('./data/outputs'),
  /** Set: leases per room in Redis, so that several replicas can run. Never logged. */
  REDIS_URL: redisUrlVar().optional(),
  OUTPUTS_REDIS_PREFIX: redisPrefixVar().default('outputs:'),
  /** Lease time to live: a dead replica's rooms are taken over at most this long (plus a poll) after. */
  OUTPUTS_LEASE_MS: intVar(2000, 60_000).default(6000),
  /** Least time between two POSTs to one YouTube ingestion URL (YouTube: at most one per second). */
  OUTPUTS_YOUTUBE_INTERVAL_MS: intVar(50, 60_000).default(1000),
  /** Least time between two POSTs to one Zoom meeting (Web Captioner's pacing). */
  OUTPUTS_ZOOM_INTERVAL_MS: intVar(50, 60_000).default(2500),
  /** A platform request with no answer after this long is abandoned and retried. */
  OUTPUTS_REQUEST_TIMEOUT_MS: intVar(100, 120_000).default(10_000),
  /** Longest wait between two retries of a failed POST (backoff from 500 ms, doubled, jittered). */
  OUTPUTS_RETRY_MAX_MS: intVar(500, 600_000).default(30_000),
  /** Retry interval of a destination in `failing` (403/405, refused redirects). */
  OUTPUTS_FAILING_RETRY_MS: intVar(100, 3_600_000).default(60_000),
  /**
   * A caption older than this (by the relay's time) when its turn comes to be sent to YouTube or
   * Zoom is archived but not sent: after an outage the live audience gets the captions of the
   * last minute, not a burst of minutes-old ones (Zoom shows each caption as it comes; YouTube's
   * viewers, 5-30 s behind live, are past that point of the stream). One minute covers what
   * ordinary recovery takes (a restart, a replica takeover, retries backing off to 30 s).
   */
  OUTPUTS_LIVE_MAX_AGE_MS: intVar(1000, 86_400_000).default(60_000),
  /** An archive session ends after this long without a caption. */
  OUTPUTS_SESSION_IDLE_MS: intVar(1000, 86_400_000).default(30 * 60_000),
  /**
   * The self-hosted Apertium APy: a target with engine `apertium` and no url uses it, and its
   * host:port is allowed by being configured here.
   */
  OUTPUTS_APERTIUM_URL: z
    .string()
    .regex(/^https?:\/\/[^/?#@\s]+(\/[^?#\s]*)?$/, {
      message: 'must be an http:// or https:// URL without query',
    })
    .default('http://127.0.0.1:2737'),
  /** One translation engine call, from the request to the last byte of its answer. */
  OUTPUTS_TRANSLATION_TIMEOUT_MS: intVar(100, 120_000).default(10_000),
});

export interface Config extends z.infer<typeof configSchema> {
  /**
   * The service access token (CAPTION_API_KEY): the relay's rooms API (`GET /rooms`) is read with
   * it. Undefined: the relay must trust this host (loopback).
   */
  apiKey: string | undefined;
  /** `host:port` entries besides the platforms' own hosts (stand-ins in tests); http allowed there. */
  allowedHosts: ReadonlySet<string>;
  /** Browser origins answered with CORS (the editor page when it is served from elsewhere). */
  allowedOrigins: ReadonlySet<string>;
}

const SECRETS_DIR = fileURLToPath(new URL('../../../secrets/', import.meta.url));

/** The environment with `secrets/caption-local.env` (CAPTION_LOCAL_ENV_FILE) under it: the service token. */
export function outputsEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return withCaptionLocalEnv(env, SECRETS_DIR);
}

/** Reads and validates the environment; one ConfigError naming every wrong variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const issues: string[] = [];
  const values = parseEnvInto(issues, configSchema, env);
  const apiKey = readApiKey(env, issues);
  const allowedHosts = new Set<string>();
  try {
    for (const host of parseHostList(env.OUTPUTS_ALLOWED_HOSTS ?? '')) allowedHosts.add(host);
  } catch (error) {
    issues.push(`OUTPUTS_ALLOWED_HOSTS: ${(error as Error).message}`);
  }
  const allowedOrigins = parseOriginList(
    'OUTPUTS_ALLOWED_ORIGINS',
    env.OUTPUTS_ALLOWED_ORIGINS ?? '',
    issues,
  );
  if (issues.length > 0 || values === undefined) throw new ConfigError(issues);
  return { ...values, apiKey, allowedHosts, allowedOrigins };
}
