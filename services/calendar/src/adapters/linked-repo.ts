import type { Knex } from 'knex';
import type { OrganizerRow, VenueRow } from '../domain/render.js';
import { containsPattern } from './like.js';

/** Venues and organizers: posts linked to events, stored alike. */
export type LinkedKind = 'venue' | 'organizer';
export const linkedTable = { venue: 'cal_venues', organizer: 'cal_organizers' } as const;
export type LinkedRow = VenueRow | OrganizerRow;

export interface LinkedFilter {
  search?: string;
  event?: number;
  hasEvents?: boolean;
  onlyWithUpcoming: boolean;
  statuses: string[];
  author?: number;
}

/** Event ids linked to the venue/organizer: a subquery. */
function eventsOf(knex: Knex, kind: LinkedKind) {
  return kind === 'venue'
    ? knex('cal_events as e').select('e.venue_id as linked_id')
    : knex('cal_event_organizers as l')
        .join('cal_events as e', 'e.id', 'l.event_id')
        .select('l.organizer_id as linked_id');
}

export async function listLinked(
  knex: Knex,
  kind: LinkedKind,
  filter: LinkedFilter,
  limit: number,
  offset: number,
) {
  const query = knex(`${linkedTable[kind]} as p`).whereIn('p.status', filter.statuses);
  if (filter.author !== undefined)
    query.where((q) => q.where('p.status', 'publish').orWhere('p.author', filter.author!));
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    const fields =
      kind === 'venue'
        ? ['title', 'description', 'address', 'city', 'country', 'zip']
        : ['title', 'description', 'email', 'phone', 'website'];
    query.where((q) => {
      for (const field of fields) q.orWhereILike(`p.${field}`, pattern);
    });
  }
  if (filter.event !== undefined) query.whereIn('p.id', eventsOf(knex, kind).where('e.id', filter.event));
  if (filter.hasEvents !== undefined) {
    // Tribe__Events__Linked_Posts__Base::find_with_events: an event of any status but draft and
    // pending counts; `false` lists the records without one.
    const withEvents = eventsOf(knex, kind).whereNotIn('e.status', ['draft', 'pending']);
    if (filter.hasEvents) query.whereIn('p.id', withEvents);
    else
      query.whereNotIn('p.id', withEvents.whereNotNull(kind === 'venue' ? 'e.venue_id' : 'l.organizer_id'));
  }
  if (filter.onlyWithUpcoming) {
    query.whereIn(
      'p.id',
      eventsOf(knex, kind).where('e.status', 'publish').where('e.end_utc', '>=', knex.fn.now()),
    );
  }
  const [{ total }] = (await query.clone().count({ total: '*' })) as [{ total: number }];
  const rows = (await query
    .select('p.*')
    // Newest first, as The Events Calendar lists venues and organizers.
    .orderBy('p.date_utc', 'desc')
    .orderBy('p.id', 'desc')
    .limit(limit)
    .offset(offset)) as LinkedRow[];
  return { rows, total };
}

export async function findLinked(knex: Knex, kind: LinkedKind, by: { id: number } | { slug: string }) {
  return (await knex(linkedTable[kind]).where(by).first()) as LinkedRow | undefined;
}

/**
 * The oldest existing, not trashed record whose given fields all match case-insensitively and
 * that `visible` accepts (any, when not given): answering a record the caller may not read would
 * leak it.
 */
export async function findDuplicate(
  knex: Knex,
  kind: LinkedKind,
  fields: Record<string, unknown>,
  visible?: (row: LinkedRow) => boolean,
) {
  const query = knex(linkedTable[kind]).whereNot('status', 'trash');
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') query.whereRaw('lower(??) = lower(?)', [name, value]);
    else query.where(name, value as Knex.Value);
  }
  if (!visible) return (await query.orderBy('id').first()) as LinkedRow | undefined;
  // Exact duplicates are few: filtering them here keeps one permission rule (canRead).
  return ((await query.orderBy('id')) as LinkedRow[]).find(visible);
}

export async function insertLinked(knex: Knex, kind: LinkedKind, row: Record<string, unknown>) {
  const [created] = await knex(linkedTable[kind]).insert(row).returning('*');
  return created as LinkedRow;
}

export async function updateLinked(
  knex: Knex,
  kind: LinkedKind,
  id: number,
  changes: Record<string, unknown>,
) {
  const [updated] = await knex(linkedTable[kind]).where('id', id).update(changes).returning('*');
  return updated as LinkedRow;
}

export async function setEventOrganizers(knex: Knex, eventId: number, organizerIds: number[]) {
  await knex('cal_event_organizers').where('event_id', eventId).delete();
  const unique = [...new Set(organizerIds)];
  if (unique.length > 0) {
    await knex('cal_event_organizers').insert(
      unique.map((organizer_id, position) => ({ event_id: eventId, organizer_id, position })),
    );
  }
}

/** Slugs in use in a table that start like `base`, to pick the next free `base-N`. */
export async function slugsLike(knex: Knex, table: string, base: string, exceptId?: number) {
  const query = knex(table).where('slug', base).orWhereLike('slug', `${base}-%`);
  const rows = (await query.select('id', 'slug')) as { id: number; slug: string }[];
  return new Set(rows.filter((r) => r.id !== exceptId).map((r) => r.slug));
}
