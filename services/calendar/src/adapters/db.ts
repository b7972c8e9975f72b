import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// Counts come back as bigint strings; the ids and totals here fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
// Wall-clock columns stay text (`YYYY-MM-DD HH:mm:ss`): a Date would drag in the host's timezone.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMP, (value) => value.slice(0, 19));

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
  poolSize: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const knex = knexFactory({
      client: 'pg',
      connection: options.url,
      pool: { min: 0, max: options.poolSize },
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
