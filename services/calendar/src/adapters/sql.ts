import { createHash, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/** Positional parameters for hand-written SQL: `p(value)` returns `$n`. */
export class Params {
  readonly values: unknown[] = [];
  p(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Names by statement text: the texts are few (one per combination of filters present). */
const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `cal_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    if (names.size >= 1000) names.clear();
    names.set(text, name);
  }
  return name;
}

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs `text` as a named prepared statement on a pooled connection (the transaction's own one
 * inside a transaction): PostgreSQL parses and plans a statement text once per connection.
 * Reports to knex's `query` / `query-response` listeners, as knex's own queries do.
 */
export async function prepared<Row>(knex: Knex, text: string, values: unknown[]): Promise<Row[]> {
  const name = statementName(text);
  const uid = randomUUID();
  knex.emit('query', { __knexQueryUid: uid, sql: text, bindings: values });
  const connection = (await knex.client.acquireConnection()) as PgConnection;
  try {
    const { rows } = await connection.query({ name, text, values });
    knex.emit('query-response', rows, { __knexQueryUid: uid, sql: text });
    return rows as Row[];
  } finally {
    await knex.client.releaseConnection(connection);
  }
}
