import { type Database, openDatabase as openSqlDatabase, setTypeParser } from '@live-captions/sql';
import type { Knex } from 'knex';

export type { Database };

// Wall-clock columns stay text (`YYYY-MM-DD HH:mm:ss`): a Date would drag in the host's timezone.
setTypeParser('TIMESTAMP', (value) => value.slice(0, 19));

export interface DatabaseOptions {
  /** A PostgreSQL URL; without one an embedded PGlite under `dataDir` is served on loopback. */
  url?: string;
  dataDir: string;
  poolSize: number;
  /** PostgreSQL cancels any statement running longer (ms; 0: no limit). */
  statementTimeoutMs?: number;
}

/** The calendar's database: the shared connection setup, with its PostgreSQL session settings. */
export function openDatabase(options: DatabaseOptions): Promise<Database> {
  return openSqlDatabase({
    url: options.url,
    dataDir: options.dataDir,
    poolSize: options.poolSize,
    connection: {
      // A startup parameter: every pooled connection runs under it, no extra round trip.
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      // Only the named statements of sql.ts are affected: their text is fixed per filter shape
      // and their plans do not depend on the values, but PostgreSQL kept re-planning the
      // category lists at every execution (a third of their time).
      options: '-c plan_cache_mode=force_generic_plan',
    },
  });
}

/** SQLSTATE classes and codes meaning the server is gone or refusing, not that the query is wrong. */
const unavailableStates = /^(08|57P0[1-4]|53300)/;
const unavailableErrnos = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);

/**
 * True when `error` says PostgreSQL cannot be reached right now (connection refused, reset or
 * terminated by a shutdown, no pooled connection in time): the request may succeed later, so it
 * is a 503, not a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string' && (unavailableErrnos.has(code) || unavailableStates.test(code))) return true;
  if (name === 'KnexTimeoutError') return true;
  // node-postgres raises these without a code when the socket closes under a query or a connect
  // (knex puts the SQL in front of the message).
  return (
    typeof message === 'string' &&
    /(Connection terminated|Connection ended unexpectedly|Client has encountered a connection error|timeout expired)/.test(
      message,
    )
  );
}

/** Unique violation, serialization failure or deadlock: a concurrent write won the race. */
const isWriteRace = (error: unknown) =>
  !!error &&
  typeof error === 'object' &&
  ['23505', '40001', '40P01'].includes(String((error as { code?: unknown }).code));

/**
 * Serializes, until the transaction ends, the writers that pick a free name under the same key
 * (a slug base, a term name): the second one then sees the first one's row instead of racing it
 * to the unique index.
 */
export async function lockName(trx: Knex, key: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [key]);
}

/**
 * Runs `work` in a transaction, again (up to 3 times) when it lost a race against a concurrent
 * write: two requests creating the same term name or slug both check it is free, one insert
 * then hits the unique index. The next attempt sees the committed row and resolves it.
 */
export async function writeTransaction<T>(
  knex: Knex,
  work: (trx: Knex.Transaction) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await knex.transaction(work);
    } catch (error) {
      if (attempt >= 3 || !isWriteRace(error)) throw error;
    }
  }
}

/** A statement cancelled by `statement_timeout` (SQLSTATE 57014). */
export const isStatementTimeout = (error: unknown) =>
  !!error && typeof error === 'object' && (error as { code?: unknown }).code === '57014';
