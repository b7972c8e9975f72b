import { createServer, type Server } from 'node:http';
import { parseTrustedProxies, type TrustedProxies } from '@live-captions/http';
import { createLogger, type Logger, listening } from '@live-captions/runtime';
import { WebSocketServer } from 'ws';
import { relayMetrics } from './adapters/metrics.js';
import { type FanoutMode, RedisCluster } from './adapters/redis-cluster.js';
import type { RoomsStore } from './adapters/rooms-store.js';
import type { RelayConfig } from './domain/relay-config.js';
import { Hub } from './hub/hub.js';
import { RoomRegistry } from './registry/room-registry.js';
import { httpRoutes } from './routes/http.js';
import { roomsApp } from './routes/rooms.js';
import { upgradeHandler } from './routes/ws-upgrade.js';

export { RoomsStore } from './adapters/rooms-store.js';
// The history's parts, for the retention benchmark (bench/relay/retention.ts) through this entry.
export { captionFrame, parsePublish } from './domain/frames.js';
export { Retention, RoomLog } from './domain/history.js';
export { DEFAULT_LIMITS, type RelayLimits } from './domain/limits.js';
export type { RelayConfig } from './domain/relay-config.js';
export { parseRelayConfig, parseRelayConfigText, RelayConfigError } from './domain/relay-config.js';
export type { RelayHealth } from './hub/health.js';

export interface RelayOptions {
  config: RelayConfig;
  /** Proxies whose X-Forwarded-For is believed (RELAY_TRUSTED_PROXIES). Default: none. */
  trustedProxies?: TrustedProxies;
  logger?: Logger;
  /** This node's name in /health and /metrics. */
  nodeId?: string;
  /** Cluster mode: rooms are sequenced and shared on this Redis. Without it, in memory. */
  redis?: { url: string; prefix?: string; fanout?: FanoutMode };
  /**
   * Caption rooms made at runtime (`/rooms`), kept in this store beside the file's rooms.
   * Without it the relay serves the file's rooms only and has no rooms API.
   */
  rooms?: {
    store: RoomsStore;
    /** The service access token of the rooms API; undefined: loopback callers only. */
    apiKey: string | undefined;
    /** How often this node looks for other nodes' changes (default 1000 ms). */
    pollMs?: number;
  };
}

export interface Relay {
  readonly server: Server;
  readonly hub: Hub;
  /** Cluster mode only. */
  readonly cluster: RedisCluster | undefined;
  /** The caption rooms made at runtime, when the relay has a rooms store. */
  readonly registry: RoomRegistry | undefined;
  /** Listens; resolves with the bound port. */
  listen(port: number, host: string): Promise<number>;
  /** Applies a re-read config file (SIGHUP). */
  reload(config: RelayConfig): void;
  /** Closes every socket with 1001, then the server. */
  close(): Promise<void>;
}

function newWss(config: RelayConfig): WebSocketServer {
  // maxPayload: larger frames close with 1009 before they reach us.
  return new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: config.limits.payloadBytes,
  });
}

/** Builds the relay: HTTP routes `/health` and `/metrics`, WebSocket on `/ws`. */
export function createRelay(options: RelayOptions): Relay {
  const log = options.logger ?? createLogger('relay');
  let config = options.config;
  let origins: ReadonlySet<string> = new Set(config.origins);
  let wss = newWss(config);
  let ready = false;
  const hub = new Hub(config, log);
  const nodeId = options.nodeId ?? 'relay';
  let cluster: RedisCluster | undefined;
  if (options.redis) {
    cluster = new RedisCluster({
      url: options.redis.url,
      prefix: options.redis.prefix ?? 'relay:',
      fanout: options.redis.fanout ?? 'stream',
      hub,
      limits: () => config.limits,
      logger: log,
    });
    hub.attachCluster(cluster);
    cluster.start();
  }
  const node = () => ({ id: nodeId, redis: cluster ? cluster.state : ('off' as const) });
  const metrics = relayMetrics(hub, node);

  // What a configuration (the file's, with the registry's rooms added) changes on this node.
  const apply = (next: RelayConfig) => {
    if (next.limits.payloadBytes !== config.limits.payloadBytes) wss = newWss(next);
    config = next;
    origins = new Set(next.origins);
    hub.reload(next);
  };
  const registry = options.rooms
    ? new RoomRegistry({
        store: options.rooms.store,
        file: config,
        apply,
        logger: log,
        pollMs: options.rooms.pollMs,
      })
    : undefined;
  const rooms =
    registry &&
    roomsApp({
      registry,
      apiKey: options.rooms?.apiKey,
      origins: () => origins,
      activity: (room) => hub.activity(room),
      logger: log,
    });

  const server = createServer(
    httpRoutes({
      hub,
      ready: () => ready,
      node,
      metrics,
      logger: log,
      rooms,
      roomsStore: () => registry?.storeReachable,
      origins: () => origins,
    }),
  );
  server.on(
    'upgrade',
    upgradeHandler({
      hub,
      wss: () => wss,
      origins: () => origins,
      proxies: options.trustedProxies ?? parseTrustedProxies(''),
      onRefused: () => {
        hub.stats.rejected += 1;
      },
      logger: log,
    }),
  );

  return {
    server,
    hub,
    cluster,
    registry,
    async listen(port, host) {
      await registry?.start();
      server.listen(port, host);
      const bound = await listening(server);
      ready = true;
      return bound;
    },
    reload(file) {
      if (registry) registry.setFile(file);
      else apply(file);
    },
    async close() {
      ready = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await registry?.stop();
      await hub.shutdown();
      server.closeAllConnections();
      await closed;
      await cluster?.close();
    },
  };
}
