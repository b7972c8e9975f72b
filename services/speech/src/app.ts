/**
 * The speech gateway as an express app, assembled in order. `index.ts` adds config, the queue
 * backend and signals; tests build it directly with a queue of their choice.
 */
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTrustedProxies, requestLog } from '@live-captions/http';
import type { InferenceQueue } from '@live-captions/inference';
import type { RelaySettings } from '@live-captions/protocol';
import { createLogger, type Logger } from '@live-captions/runtime';
import { captureDir } from '@live-captions/web';
import express, { type Express, type Router } from 'express';
import { speechMetrics } from './adapters/metrics.js';
import { QUEUE_BOARD_PATH } from './adapters/queue-board.js';
import { relayRoomsLookup } from './adapters/relay-rooms.js';
import { sileroVad, type VadSource } from './adapters/vad.js';
import type { SpeechConfig } from './config.js';
import { Admission } from './domain/admission.js';
import { decodePath } from './domain/decode-path.js';
import type { StreamStore } from './domain/stream-store.js';
import { apiGuards } from './routes/guards.js';
import {
  concurrencyLimit,
  cors,
  errorHandler,
  notFound,
  securityHeaders,
  shutdownGuard,
} from './routes/middleware.js';
import { nativeRoutes } from './routes/native.js';
import { openAiRoutes } from './routes/openai.js';
import { type RealtimeGateway, realtimeGateway } from './routes/realtime.js';
import { statusRoutes } from './routes/status.js';

/** Fixed by the contract: a body must be complete within 10 s. */
const UPLOAD_TIMEOUT_MS = 10_000;

/** Placeholder page, served while the capture page of @live-captions/web is not built. */
export const PLACEHOLDER_DIR = fileURLToPath(new URL('../public/', import.meta.url));

/** The built capture page when there is one (`pnpm build`), else the placeholder. */
export function staticDir(): string {
  return existsSync(join(captureDir, 'index.html')) ? captureDir : PLACEHOLDER_DIR;
}

export interface AppOptions {
  config: SpeechConfig;
  queue: InferenceQueue;
  /** From `secrets/relay-tokens.env`; undefined when the file is absent. */
  relay?: RelaySettings | undefined;
  logger?: Logger;
  /** Stream-expiry clock (tests move it). */
  now?: () => number;
  /** Tests shorten the fixed 10 s upload deadline to keep the suite fast. */
  uploadTimeoutMs?: number;
  /** Tests shorten the queue deadline below CAPTION_QUEUE_TIMEOUT's 1 s minimum. */
  queueTimeoutMs?: number;
  /** Shared streams (several gateways on Redis); default this process's own. */
  streamStore?: StreamStore;
  /** Static files at `/`; default {@link staticDir}. */
  publicDir?: string;
  /** The ops queue view (adapters/queue-board.ts), mounted at `/ops/queues`; Redis backend only. */
  opsRouter?: Router;
  /** VAD of `/v1/realtime` sessions; default: none (realtime upgrades answer 503). */
  vad?: VadSource;
}

export interface SpeechApp {
  app: Express;
  admission: Admission;
  /** `/v1/realtime`: `realtime.attach(server)` serves its WebSocket upgrades. */
  realtime: RealtimeGateway;
  /**
   * Graceful shutdown: new requests get 503, the listener stops accepting, running decodes
   * finish (their results are still cached and answered) within CAPTION_SHUTDOWN_TIMEOUT, those
   * left are answered 503, then the queue closes.
   */
  shutdown(server?: Server): Promise<void>;
}

export function createApp(options: AppOptions): SpeechApp {
  const { config, queue } = options;
  const logger = options.logger ?? createLogger('speech');
  const uploadTimeoutMs = options.uploadTimeoutMs ?? UPLOAD_TIMEOUT_MS;
  const shutdownGraceMs = config.shutdownTimeoutSeconds * 1000;
  // The realtime route refuses upgrades on the same VAD source's answer: one source of truth.
  const vad = options.vad ?? sileroVad(Promise.resolve(undefined));
  const admission = new Admission({
    queue,
    realtime: () => vad.availability(),
    maxStreams: config.maxStreams,
    queueTimeoutMs: options.queueTimeoutMs ?? config.queueTimeoutSeconds * 1000,
    version: config.version,
    now: options.now,
    store: options.streamStore,
  });
  const metrics = speechMetrics(queue, () => admission.store, admission.lag);
  admission.onDecoded = (result, request) => {
    metrics.decoded(result, request);
    if (decodePath(request) !== 'v1') admission.lag.decoded(request.streamId, result);
  };
  admission.lag.onSkip = (path, seconds) => metrics.skipped(path, seconds);
  const allowed = new Set(config.allowedOrigins);
  const guards = apiGuards(config.apiKey, allowed);
  const state = { closing: false };
  const relayOrigin = options.relay ? [new URL(options.relay.relayUrl).origin] : [];

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', parseTrustedProxies(config.trustProxy ?? ''));
  // Correlation id (the client's X-Request-ID when it sent one) for the request's log lines and its job.
  app.use(requestLog(logger));
  app.use(metrics.track);
  // For Prometheus on the internal network; Traefik does not route it (compose.yaml).
  app.get('/metrics', metrics.serve);
  app.use(securityHeaders(relayOrigin));
  app.use(shutdownGuard(state));
  app.use(concurrencyLimit(config.httpLimit));
  // Same-origin ops page: under the API's security headers and limits, before the CORS rules
  // meant for the capture page and API clients.
  if (options.opsRouter) app.use(QUEUE_BOARD_PATH, options.opsRouter);
  app.use(cors(allowed));
  // The static capture page needs no token.
  app.use(express.static(options.publicDir ?? staticDir(), { index: 'index.html', dotfiles: 'ignore' }));
  app.use(nativeRoutes(admission, guards, uploadTimeoutMs));
  app.use(openAiRoutes(admission, guards, uploadTimeoutMs));
  app.use(
    statusRoutes(admission, guards, {
      apiKey: config.apiKey,
      settings: options.relay,
      room: relayRoomsLookup(config, options.relay),
    }),
  );
  app.use(notFound());
  app.use(errorHandler(logger));

  const realtime = realtimeGateway({
    admission,
    apiKey: config.apiKey,
    allowedOrigins: allowed,
    config: config.realtime,
    vad,
    logger,
    state,
    trustProxy: app.get('trust proxy fn') as (address: string, hop: number) => boolean,
  });

  async function shutdown(server?: Server): Promise<void> {
    state.closing = true;
    // Realtime sessions have no request to finish: they are told and closed at once.
    realtime.closeAll();
    const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
    server?.closeIdleConnections();
    const abandoned = await admission.drain(shutdownGraceMs);
    if (abandoned > 0) logger.warn({ abandoned }, 'shutdown grace over: answered the requests left with 503');
    await queue.close();
    // Let answered requests flush before the listener is reported closed; a client that keeps
    // its connection open past that does not hold the process.
    server?.closeIdleConnections();
    const forced = setTimeout(() => server?.closeAllConnections(), 2_000);
    await closed;
    clearTimeout(forced);
  }

  return { app, admission, realtime, shutdown };
}
