import type { Knex } from 'knex';
import type { TermRow } from '../domain/render.js';
import { containsPattern } from './like.js';

export interface TermFilter {
  taxonomy: string;
  search?: string;
  include?: number[];
  exclude?: number[];
  parent?: number;
  post?: number;
  slug?: string;
  hideEmpty: boolean;
  orderby: string;
  order: 'asc' | 'desc';
}

/** Published events per term: the `count` of a term. */
const countSql = `(SELECT count(*) FROM cal_event_terms et JOIN cal_events e ON e.id = et.event_id
  WHERE et.term_id = t.id AND e.status = 'publish')`;

/** Recomputes the stored counts of the given terms (all when none given). */
export async function refreshTermCounts(knex: Knex, termIds?: number[]) {
  if (termIds && termIds.length === 0) return;
  // Two transactions recounting one term would each count from their own snapshot and the last
  // to commit would drop the other's event. Locking the rows first (in id order, no deadlock)
  // makes the count below, a new statement, see every transaction that committed before. NO KEY
  // UPDATE, as the count update itself: FOR UPDATE would deadlock with the KEY SHARE locks that
  // inserting the event's term links takes.
  if (termIds) await knex('cal_terms').whereIn('id', termIds).orderBy('id').forNoKeyUpdate().select('id');
  const query = knex('cal_terms as t').update({ count: knex.raw(countSql) });
  if (termIds) query.whereIn('t.id', termIds);
  await query;
}

export async function termIdsOfEvent(knex: Knex, eventId: number): Promise<number[]> {
  return (await knex('cal_event_terms').where('event_id', eventId).pluck('term_id')) as number[];
}

export async function listTerms(knex: Knex, filter: TermFilter, limit: number, offset: number) {
  const query = knex('cal_terms as t').where('t.taxonomy', filter.taxonomy);
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    query.where((q) => q.whereILike('t.name', pattern).orWhereILike('t.slug', pattern));
  }
  if (filter.include) query.whereIn('t.id', filter.include);
  // WP_Term_Query ignores `exclude` when `include` is given.
  if (filter.exclude && !filter.include) query.whereNotIn('t.id', filter.exclude);
  if (filter.parent !== undefined) query.where('t.parent', filter.parent);
  if (filter.slug !== undefined) query.where('t.slug', filter.slug);
  if (filter.post !== undefined) {
    query.whereIn('t.id', knex('cal_event_terms').select('term_id').where('event_id', filter.post));
  }
  if (filter.hideEmpty) query.where('t.count', '>', 0);
  const [{ total }] = (await query.clone().count({ total: '*' })) as [{ total: number }];
  // Names and descriptions sort case-insensitively, as MySQL's collation does for WordPress.
  const column =
    {
      id: 't.id',
      include: 't.id',
      name: knex.raw('lower(t.name)'),
      slug: 't.slug',
      term_group: 't.id',
      description: knex.raw('lower(t.description)'),
    }[filter.orderby] ?? 't.count';
  const rows = (await query
    .select('t.*')
    .orderBy(column as string, filter.order)
    .orderBy('t.id', filter.order)
    .limit(limit)
    .offset(offset)) as TermRow[];
  return { rows, total };
}

/** The ids among `ids` that name no term of the taxonomy. */
export async function missingTermIds(knex: Knex, taxonomy: string, ids: number[]): Promise<number[]> {
  const found = new Set(
    (await knex('cal_terms').where('taxonomy', taxonomy).whereIn('id', ids).pluck('id')) as number[],
  );
  return ids.filter((id) => !found.has(id));
}

export async function findTerm(knex: Knex, taxonomy: string, id: number) {
  return (await knex('cal_terms as t').select('t.*').where({ 't.taxonomy': taxonomy, 't.id': id }).first()) as
    | TermRow
    | undefined;
}

/**
 * The term and its ancestors, by id. UNION (not UNION ALL) stops on a loop already stored, so the
 * walk always ends.
 */
export async function ancestorIds(knex: Knex, id: number): Promise<number[]> {
  const { rows } = (await knex.raw(
    `WITH RECURSIVE up(id, parent) AS (
       SELECT id, parent FROM cal_terms WHERE id = ?
       UNION SELECT t.id, t.parent FROM cal_terms t JOIN up ON t.id = up.parent
     ) SELECT id FROM up`,
    [id],
  )) as { rows: { id: number }[] };
  return rows.map((row) => row.id);
}

/**
 * The slug paths (`music/jazz`) of categories: each category's ancestors' slugs, root first,
 * then its own. A parent that no longer exists ends the path there.
 */
export async function categoryPaths(knex: Knex, rows: TermRow[]): Promise<Map<number, string>> {
  const ids = rows.filter((row) => row.parent).map((row) => row.id);
  const paths = new Map(rows.map((row) => [row.id, row.slug]));
  if (ids.length === 0) return paths;
  const { rows: found } = (await knex.raw(
    `WITH RECURSIVE up(start, id, parent, path, depth) AS (
       SELECT id, id, parent, slug, 0 FROM cal_terms WHERE id = ANY(?)
       UNION ALL SELECT up.start, t.id, t.parent, t.slug || '/' || up.path, up.depth + 1
         FROM cal_terms t JOIN up ON t.id = up.parent WHERE up.depth < 100
     ) SELECT DISTINCT ON (start) start, path FROM up ORDER BY start, depth DESC`,
    [ids],
  )) as { rows: { start: number; path: string }[] };
  for (const { start, path } of found) paths.set(start, path);
  return paths;
}

export async function findTermByName(knex: Knex, taxonomy: string, name: string, parent?: number) {
  const query = knex('cal_terms').where('taxonomy', taxonomy).whereRaw('lower(name) = lower(?)', [name]);
  if (parent !== undefined) query.where('parent', parent);
  return (await query.first()) as TermRow | undefined;
}

/** Terms of a taxonomy by id or slug; the values not found are returned apart. */
export async function resolveTerms(knex: Knex, taxonomy: string, refs: (number | string)[]) {
  const ids = refs.filter((r): r is number => typeof r === 'number');
  const slugs = refs.filter((r): r is string => typeof r === 'string');
  const rows = (await knex('cal_terms')
    .where('taxonomy', taxonomy)
    .where((q) => q.whereIn('id', ids).orWhereIn('slug', slugs))) as TermRow[];
  const missing = refs.filter((r) => !rows.some((row) => row.id === r || row.slug === r));
  return { rows, missing };
}

export async function slugTaken(knex: Knex, taxonomy: string, slug: string, exceptId?: number) {
  const query = knex('cal_terms').where({ taxonomy, slug });
  if (exceptId) query.whereNot('id', exceptId);
  return (await query.first()) !== undefined;
}

export async function insertTerm(knex: Knex, row: Omit<TermRow, 'id'>): Promise<TermRow> {
  const [created] = await knex('cal_terms').insert(row).returning('*');
  return created as TermRow;
}

export async function updateTerm(knex: Knex, id: number, changes: Partial<TermRow>) {
  if (Object.keys(changes).length > 0) await knex('cal_terms').where('id', id).update(changes);
}

export async function deleteTerm(knex: Knex, id: number) {
  await knex('cal_terms').where('parent', id).update({ parent: 0 });
  await knex('cal_terms').where('id', id).delete();
}

export async function setEventTerms(knex: Knex, eventId: number, taxonomy: string, termIds: number[]) {
  await knex('cal_event_terms')
    .where('event_id', eventId)
    .whereIn('term_id', knex('cal_terms').select('id').where('taxonomy', taxonomy))
    .delete();
  if (termIds.length > 0) {
    await knex('cal_event_terms')
      .insert([...new Set(termIds)].map((term_id) => ({ event_id: eventId, term_id })))
      .onConflict()
      .ignore();
  }
}
