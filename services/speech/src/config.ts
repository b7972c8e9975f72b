/**
 * The gateway's settings (speech-contract.md, "Defaults"). Engine settings (CAPTION_MODEL,
 * CAPTION_WORKERS, ...) belong to @live-captions/inference and are validated there.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseOrigin, readApiKey, trustedProxiesVar } from '@live-captions/http';
import {
  ConfigError,
  intVar,
  parseEnvInto,
  portVar,
  redisUrlVar,
  relayUrlVar,
  withCaptionLocalEnv,
} from '@live-captions/runtime';
import { z } from 'zod';
import { DEFAULT_LAG_BOUND_SECONDS } from './domain/stream-lag.js';

export interface SpeechConfig {
  bind: string;
  port: number;
  /** Service access token; undefined = trusted-loopback mode (no token needed). */
  apiKey: string | undefined;
  /** Exact browser origins allowed besides the service's own (only with apiKey). */
  allowedOrigins: string[];
  maxStreams: number;
  /** Queue deadline in seconds: a job that has not started by then fails with 429 and never runs. */
  queueTimeoutSeconds: number;
  /** Concurrent HTTP requests beyond which the gateway answers 503. */
  httpLimit: number;
  /** BullMQ on this Redis when set; the in-process worker otherwise. */
  redisUrl: string | undefined;
  /** `secrets/relay-tokens.env` unless CAPTION_RELAY_TOKENS_FILE says otherwise. */
  relayTokensFile: string;
  /** RELAY_URL: the relay whose rooms API `/relay-config?room=` asks (its HTTP address is derived). */
  relayUrl: string;
  /** SIGTERM: how long running requests may finish before the rest are answered 503. */
  shutdownTimeoutSeconds: number;
  /** Express `trust proxy` (e.g. `loopback`, `10.0.0.0/8`): whose X-Forwarded-Proto is believed. */
  trustProxy: string | undefined;
  version: string;
  realtime: RealtimeConfig;
}

/** `GET /v1/realtime` (OpenAI Realtime transcription over WebSocket). */
export interface RealtimeConfig {
  /** `silero` (fetched into CAPTION_MODEL_DIR like the worker's VAD) or a path to a Silero ggml file. */
  vadModel: string;
  /** Largest client message; a bigger one ends the session. */
  maxMessageBytes: number;
  /** Uncommitted audio (manual commits) beyond which the session ends; at most the 12 s decode limit. */
  maxBufferSeconds: number;
  /** A session without any client message for this long is closed. */
  idleTimeoutSeconds: number;
  /** Backlog of committed turns past which the oldest waiting ones are skipped (the lag watchdog). */
  lagBoundSeconds: number;
}

/** The repository's `secrets/` folder, for `src/` and `dist/` alike. */
export const SECRETS_DIR = fileURLToPath(new URL('../../../secrets/', import.meta.url));

const schema = z.object({
  CAPTION_BIND: z.string().default('127.0.0.1'),
  CAPTION_PORT: portVar().default(8765),
  CAPTION_MAX_STREAMS: intVar(1, 256).default(12),
  CAPTION_QUEUE_TIMEOUT: intVar(1, 120).default(20),
  CAPTION_HTTP_LIMIT: intVar(1, 100_000).optional(),
  CAPTION_RELAY_TOKENS_FILE: z.string().optional(),
  RELAY_URL: relayUrlVar().default('ws://127.0.0.1:8080/ws'),
  CAPTION_TRUST_PROXY: trustedProxiesVar().optional(),
  CAPTION_SHUTDOWN_TIMEOUT: intVar(1, 600).default(30),
  REDIS_URL: redisUrlVar().optional(),
  CAPTION_REALTIME_VAD_MODEL: z.string().min(1).default('silero'),
  CAPTION_REALTIME_MAX_MESSAGE_BYTES: intVar(1024, 16 * 1024 * 1024).default(1024 * 1024),
  CAPTION_REALTIME_MAX_BUFFER_SECONDS: intVar(1, 12).default(12),
  CAPTION_REALTIME_IDLE_TIMEOUT: intVar(5, 3600).default(60),
  CAPTION_LAG_BOUND_SECONDS: intVar(2, 120).default(DEFAULT_LAG_BOUND_SECONDS),
});

/**
 * The environment the gateway reads: `secrets/caption-local.env` (CAPTION_LOCAL_ENV_FILE) fills
 * what the process environment leaves unset.
 */
export function speechEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return withCaptionLocalEnv(env, SECRETS_DIR);
}

function packageVersion(): string {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): SpeechConfig {
  const issues: string[] = [];
  const vars = parseEnvInto(issues, schema, env);
  const apiKey = readApiKey(env, issues);
  const allowedOrigins: string[] = [];
  const origins = env.CAPTION_ALLOWED_ORIGINS || undefined;
  if (origins !== undefined) {
    if (apiKey === undefined) {
      issues.push(
        'CAPTION_ALLOWED_ORIGINS: needs CAPTION_API_KEY (browser origins are only allowed with a token)',
      );
    }
    for (const entry of origins.split(',').map((value) => value.trim())) {
      try {
        allowedOrigins.push(parseOrigin(entry));
      } catch (error) {
        issues.push(`CAPTION_ALLOWED_ORIGINS: ${(error as Error).message}`);
      }
    }
  }
  if (issues.length > 0 || vars === undefined) throw new ConfigError(issues);

  return {
    bind: vars.CAPTION_BIND,
    port: vars.CAPTION_PORT,
    apiKey,
    allowedOrigins,
    maxStreams: vars.CAPTION_MAX_STREAMS,
    queueTimeoutSeconds: vars.CAPTION_QUEUE_TIMEOUT,
    httpLimit: vars.CAPTION_HTTP_LIMIT ?? Math.max(64, 6 * vars.CAPTION_MAX_STREAMS + 16),
    redisUrl: vars.REDIS_URL,
    relayTokensFile: vars.CAPTION_RELAY_TOKENS_FILE ?? `${SECRETS_DIR}relay-tokens.env`,
    relayUrl: vars.RELAY_URL,
    trustProxy: vars.CAPTION_TRUST_PROXY,
    shutdownTimeoutSeconds: vars.CAPTION_SHUTDOWN_TIMEOUT,
    version: packageVersion(),
    realtime: {
      vadModel: vars.CAPTION_REALTIME_VAD_MODEL,
      maxMessageBytes: vars.CAPTION_REALTIME_MAX_MESSAGE_BYTES,
      maxBufferSeconds: vars.CAPTION_REALTIME_MAX_BUFFER_SECONDS,
      idleTimeoutSeconds: vars.CAPTION_REALTIME_IDLE_TIMEOUT,
      lagBoundSeconds: vars.CAPTION_LAG_BOUND_SECONDS,
    },
  };
}
