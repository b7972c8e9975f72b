import type { Knex } from 'knex';
import type { DateBounds } from '../domain/listing.js';
import type { EventRow } from '../domain/render.js';
import { containsPattern } from './like.js';

export interface EventFilter {
  bounds: DateBounds;
  statuses: string[];
  /** Non-published events are limited to this author's (authors and contributors). */
  ownAuthor?: number;
  search?: string;
  categoryIds?: number[];
  tagIds?: number[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  geoloc?: boolean;
  near?: { lat: number; lng: number; radiusKm: number };
  include?: number[];
  postParent?: number;
  ticketed?: boolean;
}

/** Every column but the search vector. */
const eventColumns = [
  'id',
  'author',
  'status',
  'title',
  'description',
  'excerpt',
  'slug',
  'date_utc',
  'modified_utc',
  'image',
  'password',
  'all_day',
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  'timezone',
  'cost',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'ticketed',
  'post_parent',
  'venue_id',
];

/** Words of a search as a prefix full-text query (`jazz fest` -> `jazz:* & fest:*`). */
export function tsQuery(search: string): string | undefined {
  const words = search.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.length > 0 ? words.map((word) => `${word}:*`).join(' & ') : undefined;
}

/**
 * Full text (indexed, prefix-matching words) when the search has words the English
 * dictionary keeps; a search of stop words only (`the`) or of punctuation only (`!!`) would
 * match nothing or everything there, so it falls back to a case-insensitive substring.
 */
async function whereSearch(knex: Knex, query: Knex.QueryBuilder, search: string) {
  const ts = tsQuery(search);
  if (ts) {
    const [{ n }] = (await knex.raw(`SELECT numnode(to_tsquery('english', ?)) AS n`, [ts])).rows as [
      { n: number },
    ];
    if (n > 0) {
      query.whereRaw(`e.search @@ to_tsquery('english', ?)`, [ts]);
      return;
    }
  }
  const pattern = containsPattern(search);
  query.where((q) =>
    q
      .whereILike('e.title', pattern)
      .orWhereILike('e.description', pattern)
      .orWhereILike('e.excerpt', pattern),
  );
}

const distanceSql = `(6371 * acos(least(1, cos(radians(?)) * cos(radians(v.geo_lat)) *
  cos(radians(v.geo_lng) - radians(?)) + sin(radians(?)) * sin(radians(v.geo_lat)))))`;

export async function listEvents(knex: Knex, filter: EventFilter, limit: number, offset: number) {
  const query = knex('cal_events as e').where('e.hide_from_listings', false);
  query.whereIn('e.status', filter.statuses);
  if (filter.ownAuthor !== undefined) {
    query.where((q) => q.where('e.status', 'publish').orWhere('e.author', filter.ownAuthor!));
  }
  const b = filter.bounds;
  if (!filter.include) {
    if (b.startFrom) query.where('e.start_utc', '>=', b.startFrom);
    if (b.endUntil) query.where('e.end_utc', '<=', b.endUntil);
    if (b.startsAfter) query.where('e.start_utc', '>', b.startsAfter);
    if (b.startsBefore) query.where('e.start_utc', '<', b.startsBefore);
    if (b.endsAfter) query.where('e.end_utc', '>', b.endsAfter);
    if (b.endsBefore) query.where('e.end_utc', '<', b.endsBefore);
  } else {
    query.whereIn('e.id', filter.include);
  }
  if (filter.search !== undefined && filter.search.trim() !== '') {
    await whereSearch(knex, query, filter.search.trim());
  }
  for (const termIds of [filter.categoryIds, filter.tagIds]) {
    if (termIds)
      query.whereIn('e.id', knex('cal_event_terms').select('event_id').whereIn('term_id', termIds));
  }
  if (filter.venueIds) query.whereIn('e.venue_id', filter.venueIds);
  if (filter.organizerIds) {
    query.whereIn(
      'e.id',
      knex('cal_event_organizers').select('event_id').whereIn('organizer_id', filter.organizerIds),
    );
  }
  if (filter.featured !== undefined) query.where('e.featured', filter.featured);
  if (filter.ticketed !== undefined) query.where('e.ticketed', filter.ticketed);
  if (filter.postParent !== undefined) query.where('e.post_parent', filter.postParent);
  const needsVenue = filter.geoloc !== undefined || filter.near !== undefined;
  if (needsVenue) query.leftJoin('cal_venues as v', 'v.id', 'e.venue_id');
  if (filter.geoloc === true) query.whereNotNull('v.geo_lat').whereNotNull('v.geo_lng');
  if (filter.geoloc === false) query.where((q) => q.whereNull('v.geo_lat').orWhereNull('v.geo_lng'));
  const near = filter.near;
  if (near) {
    query.whereNotNull('v.geo_lat').whereNotNull('v.geo_lng');
    query.whereRaw(`${distanceSql} <= ?`, [near.lat, near.lng, near.lat, near.radiusKm]);
  }
  const counting = query.clone().count({ total: '*' });
  query.select(eventColumns.map((c) => `e.${c}`));
  if (near) query.orderByRaw(`${distanceSql}`, [near.lat, near.lng, near.lat]);
  if (filter.include)
    query.orderBy([
      { column: 'e.date_utc', order: 'desc' },
      { column: 'e.id', order: 'desc' },
    ]);
  else query.orderBy(['e.start_utc', 'e.id']);
  query.limit(limit).offset(offset);
  // Two connections at once, except in a transaction (one connection: one after the other).
  const [[{ total }], rows] = (
    knex.isTransaction ? [await counting, await query] : await Promise.all([counting, query])
  ) as [[{ total: number }], EventRow[]];
  return { rows, total };
}

export async function findEvent(knex: Knex, by: { id: number } | { slug: string }) {
  return (await knex('cal_events').where(by).first(eventColumns)) as EventRow | undefined;
}

export async function existingEventIds(knex: Knex, ids: number[]) {
  return (await knex('cal_events').whereIn('id', ids).pluck('id')) as number[];
}

export async function insertEvent(knex: Knex, row: Record<string, unknown>) {
  const [created] = await knex('cal_events').insert(row).returning(eventColumns);
  return created as EventRow;
}

export async function updateEvent(knex: Knex, id: number, changes: Record<string, unknown>) {
  const [updated] = await knex('cal_events').where('id', id).update(changes).returning(eventColumns);
  return updated as EventRow;
}
