/**
 * The outputs service assembled: database, leases, the supervisor of readers and senders, and
 * the HTTP API. `index.ts` only reads the configuration and starts this.
 */
import { hostname } from 'node:os';
import { corsFor, requestLog, securityHeaders } from '@live-captions/http';
import { type Leases, localLeases, redisLeases } from '@live-captions/redis';
import type { Logger } from '@live-captions/runtime';
import { openDatabase } from '@live-captions/sql';
import express, { type Express } from 'express';
import { archiveRepo } from './adapters/archive-repo.js';
import { destinationsRepo } from './adapters/destinations-repo.js';
import { ingestRepo } from './adapters/ingest-repo.js';
import { outputsMetrics } from './adapters/metrics.js';
import { migrate } from './adapters/migrations.js';
import { outboxRepo } from './adapters/outbox-repo.js';
import { translationEngines } from './adapters/translation-engines.js';
import { type TranslationsRepo, translationsRepo } from './adapters/translations-repo.js';
import { vocabularyRepo } from './adapters/vocabulary-repo.js';
import type { Config } from './config.js';
import { Supervisor } from './delivery/supervisor.js';
import type { RoomTokens } from './domain/rooms.js';
import { archiveRoutes } from './routes/archive.js';
import { destinationRoutes } from './routes/destinations.js';
import { errorHandler } from './routes/http.js';
import { transcriptRoutes } from './routes/transcripts.js';
import { translationRoutes } from './routes/translations.js';

export interface Outputs {
  app: Express;
  supervisor: Supervisor;
  leases: Leases;
  /** The translation targets as stored (keys included): for tests and the bench. */
  translations: TranslationsRepo;
  database: 'postgresql' | 'pglite';
  close(): Promise<void>;
}

export async function createOutputs(
  config: Config,
  log: Logger,
  rooms: () => Map<string, RoomTokens>,
): Promise<Outputs> {
  const db = await openDatabase({ url: config.DATABASE_URL, dataDir: config.OUTPUTS_DATA_DIR });
  const applied = await migrate(db.knex);
  log.info({ database: db.kind, migrations: applied }, 'database ready');
  const leases = config.REDIS_URL
    ? redisLeases({
        url: config.REDIS_URL,
        prefix: config.OUTPUTS_REDIS_PREFIX,
        owner: `${hostname()}-${process.pid}-${Date.now()}`,
        ttlMs: config.OUTPUTS_LEASE_MS,
      })
    : localLeases();
  const metrics = outputsMetrics();
  const destinations = destinationsRepo(db.knex);
  const archive = archiveRepo(db.knex);
  const translations = translationsRepo(db.knex);
  const vocabulary = vocabularyRepo(db.knex);
  const engines = translationEngines({
    allowedHosts: config.allowedHosts,
    apertiumUrl: config.OUTPUTS_APERTIUM_URL,
    timeoutMs: config.OUTPUTS_TRANSLATION_TIMEOUT_MS,
  });
  const supervisor = new Supervisor({
    destinationsRepo: destinations,
    destinations,
    ingest: ingestRepo(db.knex, { sessionIdleMs: config.OUTPUTS_SESSION_IDLE_MS }),
    outbox: outboxRepo(db.knex),
    leases,
    metrics,
    log,
    relayUrl: config.RELAY_URL,
    rooms,
    tickMs: Math.floor(config.OUTPUTS_LEASE_MS / 4),
    intervalMs: { youtube: config.OUTPUTS_YOUTUBE_INTERVAL_MS, zoom: config.OUTPUTS_ZOOM_INTERVAL_MS },
    timeoutMs: config.OUTPUTS_REQUEST_TIMEOUT_MS,
    failingRetryMs: config.OUTPUTS_FAILING_RETRY_MS,
    retryMaxMs: config.OUTPUTS_RETRY_MAX_MS,
    liveMaxAgeMs: config.OUTPUTS_LIVE_MAX_AGE_MS,
    translations,
    vocabulary,
    engines,
  });

  const app = express();
  app.disable('x-powered-by');
  app.use(requestLog(log));
  app.use(securityHeaders([]));
  app.use(metrics.track);
  // Before the listed origins' CORS: public transcripts answer every origin (their preflight too).
  app.use(transcriptRoutes({ archive, sessionIdleMs: config.OUTPUTS_SESSION_IDLE_MS }));
  app.use(
    corsFor(config.allowedOrigins, {
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      exposeHeaders: ['Content-Disposition'],
    }),
  );
  app.get('/health', async (_req, res) => {
    const db = await dbState();
    const redis = leases.redisState();
    const relay = supervisor.relayState();
    const ok = db === 'ok' && relay === 'connected' && redis !== 'down';
    res.json({
      status: ok ? 'ok' : 'degraded',
      relay,
      db,
      ...(redis ? { redis } : {}),
      leases: { held: leases.held() },
    });
  });
  app.get('/metrics', metrics.serve);
  // No body parser here: a route that takes a body reads it after its token check (`jsonBody`).
  app.use(
    destinationRoutes({ repo: destinations, archive, supervisor, rooms, allowedHosts: config.allowedHosts }),
  );
  app.use(
    translationRoutes({
      repo: translations,
      vocabulary,
      engines,
      rooms,
      liveState: (id) => supervisor.translator(id)?.state,
      check: () => supervisor.check(),
    }),
  );
  app.use(
    archiveRoutes({
      archive,
      rooms,
      sessionIdleMs: config.OUTPUTS_SESSION_IDLE_MS,
      apiKey: config.apiKey,
      // Not awaited, as for a destination added: the room's reader starts on its own time.
      archiveAdded: () => void supervisor.check(),
    }),
  );
  app.use((_req, res) => {
    res.status(404).json({ error: { message: 'Not found', code: 'not_found' } });
  });
  app.use(errorHandler);

  async function dbState(): Promise<'ok' | 'down'> {
    try {
      await db.knex.raw('SELECT 1');
      return 'ok';
    } catch {
      return 'down';
    }
  }

  supervisor.start();
  if (leases.kind === 'local')
    log.info('no REDIS_URL: this replica sends for every room; run only one replica');
  return {
    app,
    supervisor,
    leases,
    translations,
    database: db.kind,
    async close() {
      await supervisor.stop();
      await leases.close();
      await db.close();
    },
  };
}
