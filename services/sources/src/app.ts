/**
 * The stream sources service assembled: database, leases, the egress proxy, the push listeners,
 * the supervisor of the sources this replica runs, and the operator API. `index.ts` only reads the
 * configuration and starts this.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { corsFor, requestLog, securityHeaders } from '@live-captions/http';
import type { CaptionRoom, RelayRoomTokens } from '@live-captions/protocol';
import { type Leases, localLeases, redisLeases } from '@live-captions/redis';
import type { Logger } from '@live-captions/runtime';
import { openDatabase } from '@live-captions/sql';
import express, { type Express } from 'express';
import { ArchiveClient } from './adapters/archive-client.js';
import { CalendarClient } from './adapters/calendar-client.js';
import { startEgressProxy } from './adapters/egress-proxy.js';
import { sourcesMetrics } from './adapters/metrics.js';
import { migrate } from './adapters/migrations.js';
import { type Nodes, redisNodes, singleNode } from './adapters/nodes.js';
import { type RtmpListener, startRtmpListener } from './adapters/rtmp-listener.js';
import { sourcesRepo } from './adapters/sources-repo.js';
import type { Config } from './config.js';
import { parseScheduleClock } from './domain/schedule-clock.js';
import { errorHandler, HttpError, requireToken } from './routes/http.js';
import { pushRoutes } from './routes/push.js';
import { sourceRoutes } from './routes/sources.js';
import { Scheduler } from './runner/scheduler.js';
import { Supervisor } from './runner/supervisor.js';

export interface Sources {
  app: Express;
  supervisor: Supervisor;
  scheduler: Scheduler;
  leases: Leases;
  database: 'postgresql' | 'pglite';
  /** Call once the HTTP server listens: the RTMP listener's callbacks need its port. */
  listening(port: number): void;
  close(): Promise<void>;
}

export async function createSources(
  config: Config,
  log: Logger,
  rooms: () => Map<string, RelayRoomTokens>,
  captionRooms: () => readonly CaptionRoom[] = () => [],
): Promise<Sources> {
  const db = await openDatabase({ url: config.DATABASE_URL, dataDir: config.SOURCES_DATA_DIR });
  const applied = await migrate(db.knex);
  log.info({ database: db.kind, migrations: applied }, 'database ready');
  const node = `${hostname()}-${process.pid}-${Date.now()}`;
  const redis = config.REDIS_URL
    ? {
        url: config.REDIS_URL,
        prefix: config.SOURCES_REDIS_PREFIX,
        owner: node,
        ttlMs: config.SOURCES_LEASE_MS,
      }
    : undefined;
  const leases = redis ? redisLeases(redis) : localLeases();
  const nodes: Nodes = redis ? redisNodes(redis) : singleNode();
  const metrics = sourcesMetrics();
  const repo = sourcesRepo(db.knex);
  const proxy = await startEgressProxy(
    config.allowedHosts,
    () => metrics.refused.inc(),
    config.SOURCES_EGRESS_PORT,
  );
  const secret = randomBytes(18).toString('base64url');
  let rtmp: RtmpListener | undefined;
  const push = {
    rtmpPlay: undefined as string | undefined,
    dropRtmp: undefined as ((key: string) => Promise<void>) | undefined,
    srtBind: config.SOURCES_PUSH_BIND.includes(':')
      ? `[${config.SOURCES_PUSH_BIND}]`
      : config.SOURCES_PUSH_BIND,
  };

  const supervisor = new Supervisor({
    repo,
    leases,
    nodes,
    maxPerNode: config.SOURCES_MAX_PER_NODE,
    tickMs: Math.floor(config.SOURCES_LEASE_MS / 4),
    log,
    metrics,
    runner: {
      repo,
      proxy,
      allowedHosts: config.allowedHosts,
      gatewayUrl: `${config.CAPTION_URL.replace(/\/$/, '')}/`,
      apiKey: config.apiKey,
      relayUrl: config.RELAY_URL,
      writeToken: (room) => rooms().get(room)?.write,
      log,
      metrics,
      node,
      ffmpeg: {
        path: config.FFMPEG_PATH,
        threads: config.SOURCES_FFMPEG_THREADS,
        nice: config.SOURCES_FFMPEG_NICE,
        memoryMb: config.SOURCES_FFMPEG_MEMORY_MB,
        caFile: config.SOURCES_CA_FILE,
      },
      push,
      silentSeconds: config.SOURCES_SILENT_SECONDS,
      stallSeconds: config.SOURCES_STALL_SECONDS,
    },
  });

  const scheduler = new Scheduler({
    rooms: captionRooms,
    repo,
    leases,
    calendar: new CalendarClient(config.SOURCES_CALENDAR_URL, config.SOURCES_CALENDAR_TOKEN),
    archive: new ArchiveClient(
      config.SOURCES_OUTPUTS_URL,
      config.SOURCES_PUBLIC_OUTPUTS_URL ?? config.SOURCES_OUTPUTS_URL,
    ),
    applied: () => supervisor.check(),
    clock: config.SOURCES_SCHEDULE_CLOCK ? parseScheduleClock(config.SOURCES_SCHEDULE_CLOCK) : Date.now,
    liveUrl: (room) =>
      new URL(`now.html?room=${encodeURIComponent(room)}`, config.SOURCES_PUBLIC_UI_URL).href,
    writesCalendar: config.SOURCES_CALENDAR_TOKEN !== undefined,
    pollMs: config.SOURCES_SCHEDULE_POLL_MS,
    tickMs: 1000,
    log,
  });

  const app = express();
  app.disable('x-powered-by');
  // nginx's callbacks first: their query holds a stream key, which no access line may show.
  app.use((req, _res, next) => {
    if (!req.path.startsWith('/internal/')) return next();
    const peer = req.socket.remoteAddress ?? '';
    if (!/^(127\.|::1$|::ffff:127\.)/.test(peer)) return next(new HttpError(404, 'not_found', 'Not found'));
    next();
  });
  app.use(pushRoutes({ secret, repo, supervisor, log }));
  app.use(requestLog(log));
  app.use(securityHeaders([]));
  app.use(metrics.track);
  app.use(corsFor(config.allowedOrigins, { methods: ['GET', 'POST', 'PATCH', 'DELETE'] }));
  app.get('/health', async (_req, res) => {
    const dbOk = await db.knex
      .raw('SELECT 1')
      .then(() => true)
      .catch(() => false);
    const redisState = leases.redisState();
    const ok = dbOk && redisState !== 'down';
    res.status(ok ? 200 : 503).json({
      status: ok ? 'ok' : 'degraded',
      db: dbOk ? 'ok' : 'down',
      ...(redisState ? { redis: redisState } : {}),
      node,
      sources: { running: supervisor.size, max: config.SOURCES_MAX_PER_NODE },
      push: { rtmp: rtmp ? config.SOURCES_RTMP_PORT : null, srt: config.SOURCES_SRT_PORTS },
    });
  });
  app.get('/metrics', metrics.serve);
  app.use(requireToken(config.apiKey));
  app.use(express.json({ limit: '64kb' }));
  app.use(
    sourceRoutes({
      repo,
      supervisor,
      hasRoom: (room) => rooms().has(room),
      allowedHosts: config.allowedHosts,
      maxPerNode: config.SOURCES_MAX_PER_NODE,
      nodes: () => nodes.count(),
      srtPorts: config.SOURCES_SRT_PORTS,
      push: { host: config.SOURCES_PUBLIC_HOST, rtmpPort: config.SOURCES_RTMP_PORT },
    }),
  );
  app.use((_req, res) => {
    res.status(404).json({ error: { message: 'Not found', code: 'not_found' } });
  });
  app.use(errorHandler);

  if (leases.kind === 'local') log.info('no REDIS_URL: this replica runs every source; run only one replica');
  return {
    app,
    supervisor,
    scheduler,
    leases,
    database: db.kind,
    listening(port) {
      if (config.SOURCES_RTMP_PORT > 0) {
        const base = `http://127.0.0.1:${port}/internal/rtmp/${secret}`;
        rtmp = startRtmpListener({
          nginxPath: config.NGINX_PATH,
          modulePath: config.NGINX_RTMP_MODULE,
          bind: config.SOURCES_PUSH_BIND,
          port: config.SOURCES_RTMP_PORT,
          onPublishUrl: `${base}/publish`,
          onPublishDoneUrl: `${base}/done`,
          log,
        });
        push.rtmpPlay = rtmp.playUrl;
        push.dropRtmp = rtmp.dropPublisher;
      }
      supervisor.start();
      scheduler.start();
    },
    async close() {
      await scheduler.stop();
      await supervisor.stop();
      await rtmp?.close();
      await proxy.close();
      await nodes.close();
      await leases.close();
      await db.close();
    },
  };
}
