import type { Knex } from 'knex';
import type { StoredImport } from '../domain/import/plan.js';

/** Every event an earlier import of `source` stored, with its venue's name, as the plan compares it. */
export async function storedImports(knex: Knex, source: string): Promise<StoredImport[]> {
  const { rows } = await knex.raw(
    `SELECT e.id, e.import_key AS key, e.import_sequence AS sequence, e.status,
       e.event_status = 'cancelled' AS cancelled, e.title, e.description, e.excerpt,
       to_char(e.start_local, 'YYYY-MM-DD HH24:MI:SS') AS start_local,
       to_char(e.end_local, 'YYYY-MM-DD HH24:MI:SS') AS end_local,
       e.timezone, e.all_day, v.title AS venue, e.website, e.start_utc
     FROM cal_events e LEFT JOIN cal_venues v ON v.id = e.venue_id
     WHERE e.import_source = ?`,
    [source],
  );
  return rows as StoredImport[];
}

/** Venues not in the trash whose name is one of `names` (any letter case), lowest id first. */
export async function venuesNamed(knex: Knex, names: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  if (names.length === 0) return found;
  const rows = (await knex('cal_venues')
    .whereNot('status', 'trash')
    .whereRaw('lower(title) = ANY(?::text[])', [names.map((n) => n.toLowerCase())])
    .orderBy('id')
    .select('id', 'title')) as { id: number; title: string }[];
  for (const row of rows) if (!found.has(row.title.toLowerCase())) found.set(row.title.toLowerCase(), row.id);
  return found;
}

/** Slugs of a table taken among `bases` and their `-N` forms, in one statement. */
export async function slugsTaken(knex: Knex, table: string, bases: string[]): Promise<Set<string>> {
  if (bases.length === 0) return new Set();
  const rows = (await knex(table)
    .whereRaw('slug = ANY(?::text[])', [bases])
    .orWhereRaw(`substring(slug from '^(.*)-[0-9]+$') = ANY(?::text[])`, [bases])
    .pluck('slug')) as string[];
  return new Set(rows);
}

/** Inserts many rows in batches, answering their ids in order. */
export async function insertMany(
  knex: Knex,
  table: string,
  rows: Record<string, unknown>[],
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += 200) {
    const inserted = (await knex(table)
      .insert(rows.slice(i, i + 200))
      .returning('id')) as { id: number }[];
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}

export async function updateRow(knex: Knex, table: string, id: number, changes: Record<string, unknown>) {
  await knex(table).where('id', id).update(changes);
}
