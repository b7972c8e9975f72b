import { resolve } from 'node:path';
import { parseTrustedProxies } from '@live-captions/http';
import { createLogger, reloadOnHangup, runService, stopOnSignals } from '@live-captions/runtime';
import { readRelayConfig } from './adapters/config-file.js';
import { RoomsStore } from './adapters/rooms-store.js';
import { createRelay } from './app.js';
import { loadRelayEnv, redisTarget, relayEnvironment, withEnvOrigins } from './config.js';

const log = createLogger('relay');

runService(log, async () => {
  // Settings: environment, then the private configuration file; refuse to start on any error.
  const env = loadRelayEnv(relayEnvironment());
  const config = withEnvOrigins(readRelayConfig(env.CAPTION_RELAY_CONFIG), env);
  // Caption rooms made at runtime need a durable store: PostgreSQL, or PGlite in a folder.
  const store =
    env.DATABASE_URL || env.RELAY_DATA_DIR
      ? await RoomsStore.open({ url: env.DATABASE_URL, dataDir: resolve(env.RELAY_DATA_DIR ?? 'data/relay') })
      : undefined;

  // The relay: HTTP (/health, /metrics) and WebSocket (/ws) on one server.
  const relay = createRelay({
    config,
    trustedProxies: parseTrustedProxies(env.RELAY_TRUSTED_PROXIES),
    logger: log,
    nodeId: env.RELAY_NODE_ID,
    redis: env.REDIS_URL
      ? { url: env.REDIS_URL, prefix: env.RELAY_REDIS_PREFIX, fanout: env.RELAY_REDIS_FANOUT }
      : undefined,
    rooms: store ? { store, apiKey: env.CAPTION_API_KEY, pollMs: env.RELAY_ROOMS_POLL_MS } : undefined,
  });
  const port = await relay.listen(env.RELAY_PORT, env.RELAY_BIND);
  log.info(
    {
      bind: env.RELAY_BIND,
      port,
      node: env.RELAY_NODE_ID,
      // Where Redis is, never the URL itself (it may hold a password).
      cluster: env.REDIS_URL ? { redis: redisTarget(env.REDIS_URL), fanout: env.RELAY_REDIS_FANOUT } : 'off',
      rooms: config.rooms.size,
      // Where runtime rooms are kept (off: the file's rooms only, no /rooms API).
      roomsStore: store?.kind ?? 'off',
      origins: config.origins,
    },
    'relay listening',
  );

  // SIGHUP re-reads the config file; an invalid file keeps the running configuration.
  reloadOnHangup(log, 'configuration', () => {
    const next = withEnvOrigins(readRelayConfig(env.CAPTION_RELAY_CONFIG), env);
    relay.reload(next);
    return { rooms: next.rooms.size, origins: next.origins };
  });

  // SIGTERM/SIGINT: close sockets with 1001, then exit.
  stopOnSignals(log, async () => {
    await relay.close();
    await store?.close();
  });
});
