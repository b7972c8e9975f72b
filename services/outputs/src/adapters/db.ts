/**
 * PostgreSQL through knex, or an embedded PGlite under OUTPUTS_DATA_DIR when no DATABASE_URL is
 * set (the calendar service's approach: PGlite served on loopback through one socket).
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// Counts and epoch-millisecond columns come back as bigint strings; they fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export interface Database {
  knex: Knex;
  kind: 'postgresql' | 'pglite';
  close(): Promise<void>;
}

const quiet = {
  warn: () => undefined,
  error: () => undefined,
  deprecate: () => undefined,
  debug: () => undefined,
};

export async function openDatabase(options: { url?: string; dataDir: string }): Promise<Database> {
  if (options.url) {
    const knex = knexFactory({
      client: 'pg',
      connection: { connectionString: options.url, connectionTimeoutMillis: 3000 },
      acquireConnectionTimeout: 5000,
      pool: { min: 0, max: 10 },
      log: quiet,
    });
    return { knex, kind: 'postgresql', close: () => knex.destroy() };
  }
  mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir);
  // PGlite runs one query at a time: one socket, one pooled connection.
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
