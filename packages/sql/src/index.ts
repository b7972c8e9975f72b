/**
 * How a service opens its database: PostgreSQL through knex when a URL is set, otherwise an
 * embedded PGlite under `dataDir`, served on loopback through one socket so that the same knex
 * and SQL work on both.
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// Counts and epoch-millisecond columns come back as bigint strings; they fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Reads a column type a service's own way (node-postgres' parsers hold for the whole process). */
export function setTypeParser(type: keyof typeof pg.types.builtins, parse: (value: string) => unknown): void {
  pg.types.setTypeParser(pg.types.builtins[type], parse);
}

export interface Database {
  knex: Knex;
  /** `postgresql` or `pglite`, for logs. */
  kind: 'postgresql' | 'pglite';
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A PostgreSQL URL; without one an embedded PGlite under `dataDir` is served on loopback. */
  url?: string;
  dataDir: string;
  /** The most pooled PostgreSQL connections (10 unless set). */
  poolSize?: number;
  /** More PostgreSQL connection parameters (startup parameters such as `statement_timeout`). */
  connection?: Record<string, unknown>;
}

/**
 * How long a query waits for a pooled connection, and for a new one to connect, before it fails:
 * while PostgreSQL is down or saturated nothing must hang (knex waits 60 s).
 */
const ACQUIRE_TIMEOUT_MS = 5000;
const CONNECT_TIMEOUT_MS = 3000;

const ignore = () => undefined;
// knex prints every failed connect on the console; the services log one line per state change.
const quiet = { warn: ignore, error: ignore, deprecate: ignore, debug: ignore };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const knex = knexFactory({
      client: 'pg',
      connection: {
        connectionString: options.url,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        ...options.connection,
      },
      acquireConnectionTimeout: ACQUIRE_TIMEOUT_MS,
      pool: { min: 0, max: options.poolSize ?? 10 },
      log: quiet,
    });
    return { knex, kind: 'postgresql', close: () => knex.destroy() };
  }
  mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir);
  // PGlite runs one query at a time: one socket, one pooled connection, so that a transaction is
  // never interleaved with another client's statements.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  const [host, port] = server.getServerConn().split(':');
  const knex = knexFactory({
    client: 'pg',
    connection: { host, port: Number(port), user: 'postgres', database: 'postgres' },
    pool: { min: 1, max: 1 },
    log: quiet,
  });
  return {
    knex,
    kind: 'pglite',
    async close() {
      await knex.destroy();
      await server.stop();
      await db.close();
    },
  };
}
export { isDataError, sqlState } from './errors.js';
export { codeMigrations, migrateLatest } from './migrations.js';
