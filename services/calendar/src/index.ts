import { resolve } from 'node:path';
import { closeServer, createLogger, listening, runService, stopOnSignals } from '@live-captions/runtime';
import { openDatabase } from './adapters/db.js';
import { migrate } from './adapters/migrations.js';
import { readTokens } from './adapters/tokens.js';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { importRefresher } from './services/subscriptions.js';

const log = createLogger('calendar');

// chrono reads relative dates through Date's local fields; the site timezone is applied by
// domain/dates, so the process's own zone must not add DST shifts of its own.
process.env.TZ = 'UTC';

async function main() {
  const config = loadConfig();
  const tokens = readTokens(config.CALENDAR_TOKENS_FILE);
  const db = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: resolve(config.CALENDAR_DATA_DIR),
    poolSize: config.CALENDAR_DB_POOL,
    statementTimeoutMs: config.CALENDAR_STATEMENT_TIMEOUT_MS,
  });
  const applied = await migrate(db.knex, [...tokens.values()]);
  log.info({ database: db.kind, migrations: applied }, 'database ready');

  const importOptions = {
    allowedHosts: config.CALENDAR_IMPORT_ALLOWED_HOSTS,
    maxBytes: config.CALENDAR_IMPORT_MAX_BYTES,
    timeoutMs: config.CALENDAR_IMPORT_TIMEOUT_MS,
    horizonDays: config.CALENDAR_IMPORT_HORIZON_DAYS,
  };
  const app = buildApp({
    knex: db.knex,
    restRoot: config.CALENDAR_REST_ROOT,
    timezone: config.CALENDAR_TIMEZONE,
    tokens,
    currency: {
      symbol: config.CALENDAR_CURRENCY_SYMBOL,
      position: config.CALENDAR_CURRENCY_POSITION,
      code: config.CALENDAR_CURRENCY_CODE,
    },
    cacheTtlMs: config.CALENDAR_CACHE_TTL_MS,
    trustProxy: config.CALENDAR_TRUSTED_PROXIES,
    import: importOptions,
    logger: log,
    onDatabaseState: (state, error) =>
      state === 'down'
        ? log.warn(
            { reason: (error as { code?: string } | undefined)?.code ?? 'unreachable' },
            'database lost',
          )
        : log.info('database back'),
  });
  const server = app.listen(config.CALENDAR_PORT, config.CALENDAR_BIND);
  const port = await listening(server);
  log.info(
    { bind: config.CALENDAR_BIND, port, root: `${config.CALENDAR_REST_ROOT}/cal/events/v1` },
    'calendar listening',
  );

  // Subscribed feeds (`every` N minutes) are imported again by whichever replica claims them.
  const refresher = importRefresher(
    {
      knex: db.knex,
      timezone: config.CALENDAR_TIMEZONE,
      tokens,
      now: () => new Date(),
      fetchRule: importOptions,
      horizonDays: importOptions.horizonDays,
    },
    { checkMs: config.CALENDAR_IMPORT_CHECK_MS, logger: log },
  );
  refresher.start();

  stopOnSignals(log, async () => {
    await refresher.stop();
    await closeServer(server);
    await db.close();
  });
}

runService(log, main);
