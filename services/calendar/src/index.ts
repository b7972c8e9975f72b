import { resolve } from 'node:path';
import { ConfigError, createLogger } from '@live-captions/runtime';
import { openDatabase } from './adapters/db.js';
import { migrate } from './adapters/migrations.js';
import { readTokens } from './adapters/tokens.js';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const log = createLogger('calendar');

async function main() {
  const config = loadConfig();
  const tokens = readTokens(config.CALENDAR_TOKENS_FILE);
  const db = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: resolve(config.CALENDAR_DATA_DIR),
    poolSize: config.CALENDAR_DB_POOL,
  });
  const applied = await migrate(db.knex);
  log.info({ database: db.kind, migrations: applied }, 'database ready');

  const app = buildApp({
    knex: db.knex,
    restRoot: config.CALENDAR_REST_ROOT,
    timezone: config.CALENDAR_TIMEZONE,
    tokens,
    cacheTtlMs: config.CALENDAR_CACHE_TTL_MS,
    onError: (error) => log.error({ err: error }, 'request failed'),
  });
  const server = app.listen(config.CALENDAR_PORT, config.CALENDAR_BIND, () => {
    log.info(
      {
        bind: config.CALENDAR_BIND,
        port: config.CALENDAR_PORT,
        root: `${config.CALENDAR_REST_ROOT}/cal/events/v1`,
      },
      'calendar listening',
    );
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    server.close(() => {
      db.close().then(
        () => process.exit(0),
        (error: unknown) => {
          log.error({ err: error }, 'database close failed');
          process.exit(1);
        },
      );
    });
    server.closeAllConnections();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    log.fatal({ err: error }, 'calendar failed to start');
  }
  process.exit(1);
});
