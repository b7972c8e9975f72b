import type { Knex } from 'knex';
import { lockName } from '../adapters/db.js';
import { findEvent } from '../adapters/events-repo.js';
import {
  findDuplicate,
  findLinked,
  insertLinked,
  type LinkedKind,
  type LinkedRow,
  linkedTable,
  slugsLike,
} from '../adapters/linked-repo.js';
import { findTermByName, insertTerm, resolveTerms, slugTaken } from '../adapters/terms-repo.js';
import type { Tokens } from '../adapters/tokens.js';
import { canRead, forbidden, isEditor, statusOnWrite, type User } from '../domain/auth.js';
import { parseDate, wallOf } from '../domain/date-parse.js';
import { fromWall } from '../domain/dates.js';
import { ApiError, invalidParam } from '../domain/errors.js';
import { taxonomies } from '../domain/render.js';
import { checkImage, checkUrl, filterHtml } from '../domain/safe-fields.js';
import { MAX_ID, organizerWrite, venueWrite } from '../domain/schemas.js';
import { slugify, trashedSlug, uniqueSlug, untrashedSlug } from '../domain/slug.js';
import { validate } from '../domain/validate.js';

/**
 * A relation filter (`event=` on venues and organizers, `post=` on terms) must name an event the
 * caller may read: anything else is 400, whether missing, trashed or someone else's draft (a
 * different answer would tell that it exists).
 */
export async function checkRelatedEvent(knex: Knex, param: string, id: number, user: User | undefined) {
  const row = await findEvent(knex, { id });
  if (!row || row.status === 'trash' || !canRead(user, row)) {
    throw invalidParam(param, `${param}: no event with ID ${id}.`);
  }
}

/** Publication date columns from `date` (site time) or `date_utc`, else now. */
export function publicationDate(
  input: { date?: string; date_utc?: string },
  timeZone: string,
  now: Date,
): Date | undefined {
  if (input.date_utc !== undefined) {
    const parsed = parseDate(input.date_utc, 'UTC', now);
    if (!parsed) throw invalidParam('date_utc', 'date_utc is not a valid date.');
    return parsed.kind === 'instant' ? parsed.instant : fromWall(parsed.wall, 'UTC');
  }
  if (input.date !== undefined) {
    const parsed = parseDate(input.date, timeZone, now);
    if (!parsed) throw invalidParam('date', 'date is not a valid date.');
    return fromWall(wallOf(parsed, timeZone), timeZone);
  }
  return undefined;
}

export async function freeSlug(knex: Knex, table: string, wanted: string, exceptId?: number) {
  const base = slugify(wanted);
  await lockName(knex, `${table}:${base}`);
  return uniqueSlug(base, await slugsLike(knex, table, base || 'untitled', exceptId));
}

/** The trashed slug of `row`, free in `table`: `slug__trashed`, else `slug__trashed-2`, ... */
export async function trashSlug(
  knex: Knex,
  table: string,
  row: { id: number; slug: string },
): Promise<string> {
  const base = trashedSlug(row.slug);
  await lockName(knex, `${table}:${base}`);
  return uniqueSlug(base, await slugsLike(knex, table, base, row.id));
}

/**
 * The slug a post gets when it moves into the trash (`slug__trashed`, as WordPress: the slug is
 * free for others meanwhile) or out of it (its old slug, or the next free one); undefined when
 * the status change is neither.
 */
export async function trashMoveSlug(
  knex: Knex,
  table: string,
  current: { id: number; slug: string; status: string } | undefined,
  status: string | undefined,
): Promise<string | undefined> {
  if (!current || status === undefined || (current.status === 'trash') === (status === 'trash'))
    return undefined;
  if (status === 'trash') return trashSlug(knex, table, current);
  return freeSlug(knex, table, untrashedSlug(current.slug), current.id);
}

/**
 * Columns of a venue or organizer from its write fields: URLs checked, HTML filtered for `user`
 * when the role lacks `unfiltered_html`.
 */
export function linkedColumns(
  kind: LinkedKind,
  sent: Record<string, unknown>,
  user: User,
): Record<string, unknown> {
  checkUrl('website', sent.website);
  checkImage('image', sent.image);
  const input = filterHtml(kind, sent, user);
  const columns: Record<string, unknown> = {};
  const skip = new Set(['date', 'date_utc', 'slug', 'status', 'author', kind]);
  for (const [name, value] of Object.entries(input)) {
    if (skip.has(name) || value === undefined) continue;
    columns[name] = typeof value === 'number' && name === 'image' ? String(value) : value;
  }
  if (input[kind] !== undefined) columns.title = input[kind];
  return columns;
}

/** Who writes, when and where: what creating a linked record needs besides its fields. */
export interface Writer {
  user: User;
  tokens: Tokens;
  timeZone: string;
  now: Date;
}

/**
 * The `author` a write may set: a known user, and only oneself below editor (WordPress's
 * edit_others_posts). Undefined when none is given.
 */
export function checkedAuthor(writer: Pick<Writer, 'user' | 'tokens'>, author: unknown): number | undefined {
  if (author === undefined) return undefined;
  const known = [...writer.tokens.values()].some((u) => u.id === author);
  if (!known) throw invalidParam('author', `author: no user with ID ${String(author)}.`);
  if (author !== writer.user.id && !isEditor(writer.user))
    throw forbidden(writer.user, 'Sorry, you may not write as another user.');
  return author as number;
}

/**
 * Creates a venue or organizer, or answers the oldest existing one the caller may read when
 * every given field matches it case-insensitively (The Events Calendar deduplicates linked
 * posts so; matching a record the caller cannot read would disclose it).
 */
export async function createLinked(
  knex: Knex,
  kind: LinkedKind,
  input: Record<string, unknown>,
  writer: Writer,
): Promise<LinkedRow> {
  const { user, now } = writer;
  const author = checkedAuthor(writer, input.author);
  const columns = linkedColumns(kind, input, user);
  const dedupe: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(columns)) {
    if (typeof value === 'string' && value !== '') dedupe[name] = value;
  }
  const existing = await findDuplicate(knex, kind, dedupe, (row) => canRead(user, row));
  if (existing) return existing;
  const date = publicationDate(input as { date?: string; date_utc?: string }, writer.timeZone, now) ?? now;
  return insertLinked(knex, kind, {
    ...columns,
    author: author ?? user.id,
    status: statusOnWrite(user, input.status as string | undefined),
    slug: await freeSlug(
      knex,
      linkedTable[kind],
      (input.slug as string | undefined) || (columns.title as string),
    ),
    date_utc: date,
    modified_utc: now,
  });
}

/**
 * Resolves the venue or organizer references of an event write: ids, `{id}` or inline objects
 * (created or deduplicated). A missing id is 400 `rest_invalid_param`, as The Events Calendar.
 */
export async function resolveLinks(
  knex: Knex,
  kind: LinkedKind,
  refs: (number | Record<string, unknown>)[],
  writer: Writer,
): Promise<number[]> {
  const ids: number[] = [];
  for (const ref of refs) {
    const id = typeof ref === 'number' ? ref : ref.id !== undefined ? Number(ref.id) : undefined;
    if (id !== undefined) {
      const found =
        Number.isInteger(id) && id > 0 && id <= MAX_ID ? await findLinked(knex, kind, { id }) : undefined;
      // A record the caller may not read is as missing as an unknown id: linking it would
      // publish it inside the event.
      if (!found || found.status === 'trash' || !canRead(writer.user, found)) {
        throw invalidParam(kind, `No ${kind} with ID ${String(id)}.`);
      }
      ids.push(found.id);
      continue;
    }
    let fields: Record<string, unknown>;
    try {
      fields = validate(kind === 'venue' ? venueWrite : organizerWrite, ref as Record<string, unknown>);
    } catch (error) {
      // Name the field that is wrong (an e-mail, a coordinate), not only the missing name.
      if (error instanceof ApiError) {
        const inner = (error.extra.params ?? {}) as Record<string, string> | string[];
        const why = Array.isArray(inner)
          ? `${kind} must be an id or an object with at least the ${kind} name.`
          : Object.values(inner).join(' ') || `${kind} is invalid.`;
        throw invalidParam(kind, `${kind}: ${why}`);
      }
      throw error;
    }
    ids.push((await createLinked(knex, kind, fields, writer)).id);
  }
  return ids;
}

/**
 * Term ids from ids and/or names; unknown names create the term; unknown category ids are
 * dropped, unknown tag ids are a 400.
 */
export async function resolveTermRefs(
  knex: Knex,
  taxonomy: string,
  param: string,
  refs: (number | string)[],
) {
  const { rows, missing } = await resolveTerms(knex, taxonomy, refs);
  const ids = rows.map((row) => row.id);
  for (const ref of missing) {
    if (typeof ref === 'number') {
      // The Events Calendar drops an unknown category id and saves the rest (importers send
      // ids of another site); an unknown tag id stays an error: it would make a tag named
      // after the number there.
      if (taxonomy === taxonomies.categories) continue;
      throw invalidParam(param, `${param}: no term with ID ${ref}.`);
    }
    await lockName(knex, `${taxonomy}:${ref.toLowerCase()}`);
    const existing = await findTermByName(knex, taxonomy, ref);
    if (existing) {
      ids.push(existing.id);
      continue;
    }
    const base = slugify(ref) || 'term';
    let slug = base;
    for (let n = 2; await slugTaken(knex, taxonomy, slug); n++) slug = `${base}-${n}`;
    ids.push(
      (await insertTerm(knex, { taxonomy, name: ref, slug, description: '', parent: 0, count: 0 })).id,
    );
  }
  return ids;
}
