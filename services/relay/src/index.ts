import { parseTrustedProxies } from '@live-captions/http';
import { createLogger, reloadOnHangup, runService, stopOnSignals } from '@live-captions/runtime';
import { readRelayConfig } from './adapters/config-file.js';
import { createRelay } from './app.js';
import { loadRelayEnv, redisTarget } from './config.js';

const log = createLogger('relay');

runService(log, async () => {
  // Settings: environment, then the private configuration file; refuse to start on any error.
  const env = loadRelayEnv();
  const config = readRelayConfig(env.CAPTION_RELAY_CONFIG);

  // The relay: HTTP (/health, /metrics) and WebSocket (/ws) on one server.
  const relay = createRelay({
    config,
    trustedProxies: parseTrustedProxies(env.RELAY_TRUSTED_PROXIES),
    logger: log,
    nodeId: env.RELAY_NODE_ID,
    redis: env.REDIS_URL
      ? { url: env.REDIS_URL, prefix: env.RELAY_REDIS_PREFIX, fanout: env.RELAY_REDIS_FANOUT }
      : undefined,
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
      origins: config.origins,
    },
    'relay listening',
  );

  // SIGHUP re-reads the config file; an invalid file keeps the running configuration.
  reloadOnHangup(log, 'configuration', () => {
    const next = readRelayConfig(env.CAPTION_RELAY_CONFIG);
    relay.reload(next);
    return { rooms: next.rooms.size, origins: next.origins };
  });

  // SIGTERM/SIGINT: close sockets with 1001, then exit.
  stopOnSignals(log, () => relay.close());
});
