/**
 * The stream sources service's settings, validated at start-up (one line per wrong variable,
 * never a secret's value). `secrets/caption-local.env` fills what the environment leaves unset,
 * as for the gateway: the same service access token guards both.
 */
import { accessSync, constants } from 'node:fs';
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
  secretVar,
  withCaptionLocalEnv,
} from '@live-captions/runtime';
import { z } from 'zod';
import { AllowList } from './domain/addresses.js';
import { parseScheduleClock } from './domain/schedule-clock.js';

const SECRETS_DIR = fileURLToPath(new URL('../../../secrets/', import.meta.url));

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** An http(s) base address (a path allowed: behind a proxy the outputs live at `/outputs/`). */
const httpBase = z
  .string()
  .regex(/^https?:\/\/[^/?#@\s]+(\/[^?#\s]*)?$/, {
    message: 'must be an http(s):// address without credentials',
  })
  .transform((value) => (value.endsWith('/') ? value : `${value}/`));

const portRange = z
  .string()
  .regex(/^\d{1,5}-\d{1,5}$/, { message: 'must be FIRST-LAST, e.g. 9000-9015' })
  .transform((value) => value.split('-').map(Number) as [number, number])
  .refine(([first, last]) => first >= 1 && last <= 65535 && first <= last && last - first < 1024, {
    message: 'must be ports 1-65535, first <= last, at most 1024 of them',
  });

export const configSchema = z.object({
  SOURCES_BIND: z.string().min(1).default('127.0.0.1'),
  SOURCES_PORT: portVar().default(8084),
  /** The gateway whose native `POST /transcribe` the windows go to. */
  CAPTION_URL: z
    .string()
    .regex(/^https?:\/\/[^/?#@]+\/?$/, {
      message: 'must be an http(s):// origin without path or credentials',
    })
    .default('http://127.0.0.1:8765'),
  /** The relay the captions are published to. */
  RELAY_URL: relayUrlVar().default('ws://127.0.0.1:8080/ws'),
  /** The relay's private configuration: the rooms and their write tokens. */
  CAPTION_RELAY_CONFIG: z.string().min(1).default('secrets/relay.private.json'),
  DATABASE_URL: postgresUrlVar().optional(),
  SOURCES_DATA_DIR: z.string().min(1).default('./data/sources'),
  REDIS_URL: redisUrlVar().optional(),
  SOURCES_REDIS_PREFIX: redisPrefixVar().default('sources:'),
  /** Lease time to live: a dead replica's sources move at most this long (plus a check) after. */
  SOURCES_LEASE_MS: intVar(2000, 60_000).default(6000),
  /** Sources one node runs at most; more are refused with 409 `capacity`. */
  SOURCES_MAX_PER_NODE: intVar(1, 256).default(8),
  /** Push listeners: RTMP (nginx-rtmp, `rtmp://host:PORT/live/<key>`; 0 = none) and SRT ports. */
  SOURCES_PUSH_BIND: z.string().min(1).default('127.0.0.1'),
  SOURCES_RTMP_PORT: intVar(0, 65535).default(1935),
  SOURCES_SRT_PORTS: portRange.default([9000, 9015]),
  /** The host name encoders reach the push listeners at (shown in the push URLs). */
  SOURCES_PUBLIC_HOST: z.string().min(1).default('localhost'),
  /** The egress proxy's loopback port (ffmpeg's HTTP(S) goes through it); 0: any free one. */
  SOURCES_EGRESS_PORT: intVar(0, 65535).default(0),
  FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  NGINX_PATH: z.string().min(1).default('nginx'),
  NGINX_RTMP_MODULE: z.string().min(1).default('/usr/lib/nginx/modules/ngx_rtmp_module.so'),
  /** Per source: decoder threads, niceness, address-space limit of its ffmpeg. */
  SOURCES_FFMPEG_THREADS: intVar(1, 8).default(1),
  SOURCES_FFMPEG_NICE: intVar(0, 19).default(10),
  SOURCES_FFMPEG_MEMORY_MB: intVar(64, 8192).default(512),
  /** The certificate authorities RTMPS and HTTPS inputs are verified against (PEM bundle). */
  SOURCES_CA_FILE: z
    .string()
    .min(1)
    .refine(readable, { message: 'must be a readable PEM file of certificate authorities' })
    .default('/etc/ssl/certs/ca-certificates.crt'),
  /** Audio below the sensitivity's level for this long makes a live source `silent`. */
  SOURCES_SILENT_SECONDS: intVar(2, 3600).default(10),
  /** Seconds without audio from a connected input before its ffmpeg is restarted. */
  SOURCES_STALL_SECONDS: intVar(2, 300).default(6),
  /** Longest wait between two reconnects (backoff from 0.5 s, doubling, with jitter). */
  SOURCES_RECONNECT_MAX_SECONDS: intVar(1, 600).default(30),
  /**
   * The schedule (rooms bound to a calendar venue): the calendar's REST API (TEC v1: ours at
   * `/wp-json/cal/events/v1/`, a WordPress site's at `/wp-json/tribe/events/v1/`) read every
   * poll, an editor's token of that calendar to write each talk's `captions` field (without one
   * the talks are captioned but their events not annotated), the outputs service whose archive
   * cuts a transcript per talk, and the public bases of the links written into the events.
   */
  SOURCES_CALENDAR_URL: httpBase.default('http://127.0.0.1:8082/wp-json/cal/events/v1/'),
  SOURCES_CALENDAR_TOKEN: secretVar(
    z.string().min(16, { message: 'must be at least 16 characters' }),
  ).optional(),
  SOURCES_SCHEDULE_POLL_MS: intVar(1000, 60_000).default(10_000),
  SOURCES_OUTPUTS_URL: httpBase.default('http://127.0.0.1:8083/'),
  SOURCES_PUBLIC_OUTPUTS_URL: httpBase.optional(),
  SOURCES_PUBLIC_UI_URL: httpBase.default('http://localhost:8081/'),
  /** A rehearsal clock for the schedule (`SCHEDULE@REALx<rate>`, see domain/schedule-clock.ts). */
  SOURCES_SCHEDULE_CLOCK: z
    .string()
    .refine(
      (spec) => {
        try {
          parseScheduleClock(spec);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must be SCHEDULE@REALx<rate>, e.g. 2026-12-08T09:00:00Z@2026-12-07T14:00:00Zx60' },
    )
    .optional(),
});

export interface Config extends z.infer<typeof configSchema> {
  /** The service access token (the gateway's CAPTION_API_KEY rule); undefined: loopback trust. */
  apiKey: string | undefined;
  /** Private and loopback hosts pull sources may still reach (SOURCES_ALLOWED_HOSTS). */
  allowedHosts: AllowList;
  /** Browser origins answered with CORS (SOURCES_ALLOWED_ORIGINS: the links hub's panel). */
  allowedOrigins: ReadonlySet<string>;
}

/** The environment with `secrets/caption-local.env` (CAPTION_LOCAL_ENV_FILE) under it. */
export function sourcesEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return withCaptionLocalEnv(env, SECRETS_DIR);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const issues: string[] = [];
  const values = parseEnvInto(issues, configSchema, env);
  const apiKey = readApiKey(env, issues);
  let allowedHosts = new AllowList([]);
  try {
    allowedHosts = AllowList.parse(env.SOURCES_ALLOWED_HOSTS ?? '');
  } catch (error) {
    issues.push(`SOURCES_ALLOWED_HOSTS: ${(error as Error).message}`);
  }
  const allowedOrigins = parseOriginList(
    'SOURCES_ALLOWED_ORIGINS',
    env.SOURCES_ALLOWED_ORIGINS ?? '',
    issues,
  );
  // A browser origin without a token would let any page of that origin's users run sources.
  if (allowedOrigins.size > 0 && apiKey === undefined)
    issues.push(
      'SOURCES_ALLOWED_ORIGINS: needs CAPTION_API_KEY (browser origins are only allowed with a token)',
    );
  if (issues.length > 0 || values === undefined) throw new ConfigError(issues);
  return { ...values, apiKey, allowedHosts, allowedOrigins };
}
