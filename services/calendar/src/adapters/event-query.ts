import type { Knex } from 'knex';
import type { ReadScope, Viewer } from '../domain/auth.js';
import type { DateBounds } from '../domain/listing.js';
import type { EventRow, OrganizerRow, RawRelations, TermRow, VenueRow } from '../domain/render.js';
import { searchPlan } from '../domain/search.js';
import { containsPattern } from './like.js';
import { Params, prepared } from './sql.js';

/*
 * Events with their categories, tags, venue and organizers in ONE statement: the page, its
 * relations as JSON, the total and the filter references that exist. A list costs one round
 * trip, prepared once per connection. The text depends only on which filters are present, so a
 * handful of statement names cover every request.
 */

export interface EventFilter {
  bounds: DateBounds;
  statuses: string[];
  /** Non-published events are limited to this author's (authors and contributors). */
  ownAuthor?: number;
  search?: string;
  /** Category ids or slugs; their descendant categories match too (as The Events Calendar). */
  categories?: (number | string)[];
  /** Tag ids or slugs. */
  tags?: (number | string)[];
  venueIds?: number[];
  organizerIds?: number[];
  featured?: boolean;
  geoloc?: boolean;
  near?: { lat: number; lng: number; radiusKm: number };
  include?: number[];
  postParent?: number;
  ticketed?: boolean;
}

export interface EventWithRelations {
  row: EventRow;
  relations: RawRelations;
}

export interface EventPage {
  total: number;
  /** Each event of the page as the JSON text PostgreSQL built (parse it with parseEventJson). */
  events: string[];
  /** Terms matched by the category/tag references, to name the unknown ones. */
  terms: { id: number; slug: string; taxonomy: string }[];
  venueIds: number[];
  organizerIds: number[];
  parentExists: boolean;
}

const CATEGORY = 'cal_events_cat';
const TAG = 'post_tag';

const columns = `e.id, e.author, e.status, e.title, e.description, e.excerpt, e.slug, e.date_utc,
  e.modified_utc, e.image, e.password, e.all_day,
  to_char(e.start_local, 'YYYY-MM-DD HH24:MI:SS') AS start_local,
  to_char(e.end_local, 'YYYY-MM-DD HH24:MI:SS') AS end_local,
  e.start_utc, e.end_utc, e.timezone, e.cost, e.website, e.show_map, e.show_map_link,
  e.hide_from_listings, e.sticky, e.featured, e.ticketed, e.post_parent, e.venue_id`;

const postColumns = (a: string) =>
  `${a}.id, ${a}.author, ${a}.status, ${a}.title, ${a}.description, ${a}.excerpt, ${a}.slug,
   ${a}.date_utc, ${a}.modified_utc, ${a}.image`;

/** canRead over a table alias, trashed records excluded. */
export function readableSql(alias: string, scope: ReadScope, params: Params): string {
  if (scope.all) return `${alias}.status <> 'trash'`;
  if (scope.author === undefined) return `${alias}.status = 'publish'`;
  return `(${alias}.status = 'publish' OR (${alias}.author = ${params.p(scope.author)}
    AND ${alias}.status <> ALL(${params.p(scope.hiddenStatuses)}::text[])))`;
}

/** The relations of the event aliased `e`, as three JSON columns. */
function relationsSql(viewer: Viewer, params: Params): string {
  return `
    (SELECT coalesce(json_agg(json_build_object('id', t.id, 'taxonomy', t.taxonomy, 'name', t.name,
        'slug', t.slug, 'description', t.description, 'parent', t.parent, 'count', t.count)
        ORDER BY lower(t.name), t.id), '[]')
       FROM cal_event_terms et JOIN cal_terms t ON t.id = et.term_id WHERE et.event_id = e.id) AS terms,
    (SELECT row_to_json(v) FROM (SELECT ${postColumns('v')}, v.address, v.city, v.country, v.province,
        v.state, v.zip, v.phone, v.website, v.stateprovince, v.geo_lat, v.geo_lng, v.show_map,
        v.show_map_link FROM cal_venues v
       WHERE v.id = e.venue_id AND ${readableSql('v', viewer.scope, params)}) v) AS venue,
    (SELECT coalesce(json_agg(o ORDER BY o.position), '[]') FROM (SELECT ${postColumns('o')}, o.phone,
        o.website, o.email, l.position FROM cal_event_organizers l JOIN cal_organizers o ON o.id = l.organizer_id
       WHERE l.event_id = e.id AND ${readableSql('o', viewer.scope, params)}) o) AS organizers`;
}

const distanceSql = (lat: string, lng: string) => `(6371 * acos(least(1, cos(radians(${lat}))
  * cos(radians(v.geo_lat)) * cos(radians(v.geo_lng) - radians(${lng}))
  + sin(radians(${lat})) * sin(radians(v.geo_lat)))))`;

/** Term references split for `id = ANY(ids) OR slug = ANY(slugs)`. */
function termRefs(refs: (number | string)[], params: Params) {
  const ids = refs.filter((r): r is number => typeof r === 'number');
  const slugs = refs.filter((r): r is string => typeof r === 'string');
  return `(id = ANY(${params.p(ids)}::int[]) OR slug = ANY(${params.p(slugs)}::text[]))`;
}

function whereSql(filter: EventFilter, viewer: Viewer, params: Params): string {
  // One status as an equality: the listing index (status, start_utc, id) then yields the page
  // already in order; `= ANY(array)` would make PostgreSQL sort every match.
  const where = [
    'NOT e.hide_from_listings',
    filter.statuses.length === 1
      ? `e.status = ${params.p(filter.statuses[0])}`
      : `e.status = ANY(${params.p(filter.statuses)}::text[])`,
  ];
  if (filter.ownAuthor !== undefined) {
    where.push(`(e.status = 'publish' OR e.author = ${params.p(filter.ownAuthor)})`);
  }
  if (filter.include) {
    // `include` ignores the date window (our contract; The Events Calendar re-applies it).
    where.push(`e.id = ANY(${params.p(filter.include)}::int[])`);
  } else {
    const b = filter.bounds;
    const bound = (column: string, op: string, value: Date | undefined) => {
      if (value) where.push(`e.${column} ${op} ${params.p(value)}::timestamptz`);
    };
    bound('start_utc', '>=', b.startFrom);
    bound('end_utc', '<=', b.endUntil);
    bound('start_utc', '>', b.startsAfter);
    bound('start_utc', '<', b.startsBefore);
    bound('end_utc', '>', b.endsAfter);
    bound('end_utc', '<', b.endsBefore);
  }
  const search = filter.search?.trim();
  if (search) {
    const plan = searchPlan(search);
    if (plan.kind === 'fulltext') {
      where.push(`e.search @@ to_tsquery('english', ${params.p(plan.query)})`);
    } else {
      const pattern = params.p(containsPattern(plan.text));
      where.push(
        `(e.title ILIKE ${pattern} OR e.description ILIKE ${pattern} OR e.excerpt ILIKE ${pattern})`,
      );
    }
    // Matching hidden text would let anyone rebuild it word by word through prefix searches.
    const { all, author } = viewer.protectedSearch;
    if (!all) {
      where.push(
        author === undefined ? `e.password = ''` : `(e.password = '' OR e.author = ${params.p(author)})`,
      );
    }
  }
  // Term ids as an array (`= ANY(ARRAY(...))`): PostgreSQL then reads the links of those terms
  // from the (term_id, event_id) index and hashes them, where `IN (subquery)` made it probe the
  // links of every event in the window (25 ms instead of 4 for one category at 10k events).
  if (filter.categories) {
    where.push(`e.id IN (SELECT et.event_id FROM cal_event_terms et
      WHERE et.term_id = ANY(ARRAY(SELECT id FROM cat_tree)))`);
  }
  if (filter.tags) {
    where.push(`e.id IN (SELECT et.event_id FROM cal_event_terms et WHERE et.term_id = ANY(ARRAY(
      SELECT id FROM cal_terms WHERE taxonomy = '${TAG}' AND ${termRefs(filter.tags, params)})))`);
  }
  if (filter.venueIds) where.push(`e.venue_id = ANY(${params.p(filter.venueIds)}::int[])`);
  if (filter.organizerIds) {
    where.push(`e.id IN (SELECT l.event_id FROM cal_event_organizers l
      WHERE l.organizer_id = ANY(${params.p(filter.organizerIds)}::int[]))`);
  }
  if (filter.featured !== undefined) where.push(`e.featured = ${params.p(filter.featured)}`);
  if (filter.ticketed !== undefined) where.push(`e.ticketed = ${params.p(filter.ticketed)}`);
  if (filter.postParent !== undefined) where.push(`e.post_parent = ${params.p(filter.postParent)}`);
  const located = 'SELECT v.id FROM cal_venues v WHERE v.geo_lat IS NOT NULL AND v.geo_lng IS NOT NULL';
  if (filter.geoloc === true) where.push(`e.venue_id IN (${located})`);
  if (filter.geoloc === false) where.push(`(e.venue_id IS NULL OR e.venue_id NOT IN (${located}))`);
  if (filter.near) {
    const { lat, lng, radiusKm } = filter.near;
    where.push(`e.venue_id IN (${located}
      AND ${distanceSql(params.p(lat), params.p(lng))} <= ${params.p(radiusKm)})`);
  }
  return where.join('\n  AND ');
}

/**
 * Separates the events' JSON texts in the `events` column. JSON escapes every control character
 * inside strings, so the separator can only appear between two events.
 */
const RECORD_SEPARATOR = '\x1e'; // chr(30) in the statement

/**
 * The statement of a page of events; `total` counted over the same conditions. The events come
 * back as their JSON texts, unparsed: a renderer that already rendered the same text skips it.
 */
export function eventListSql(filter: EventFilter, viewer: Viewer, limit: number, offset: number) {
  const params = new Params();
  const where = whereSql(filter, viewer, params);
  let order = 'e.start_utc, e.id';
  let orderOut = 'p.start_utc, p.id';
  let extra = '';
  if (filter.include) {
    // Oldest publication first, as The Events Calendar orders `include`.
    order = 'e.date_utc, e.id';
    orderOut = 'p.date_utc, p.id';
  }
  if (filter.near) {
    const distance = distanceSql(params.p(filter.near.lat), params.p(filter.near.lng));
    extra = `, (SELECT ${distance} FROM cal_venues v WHERE v.id = e.venue_id) AS distance`;
    order = `distance, ${order}`;
    orderOut = `p.distance, ${orderOut}`;
  }
  const ctes: string[] = [];
  if (filter.categories) {
    ctes.push(`cat_tree AS (
         SELECT id FROM cal_terms WHERE taxonomy = '${CATEGORY}' AND ${termRefs(filter.categories, params)}
         UNION SELECT t.id FROM cal_terms t JOIN cat_tree c ON t.parent = c.id WHERE t.taxonomy = '${CATEGORY}')`);
  }
  const limitParam = params.p(limit);
  const offsetParam = params.p(offset);
  ctes.push(`page AS MATERIALIZED (SELECT e.*${extra} FROM cal_events e WHERE ${where}
           ORDER BY ${order} LIMIT ${limitParam} OFFSET ${offsetParam})`);
  const refs: string[] = [];
  if (filter.categories) {
    refs.push(`(taxonomy = '${CATEGORY}' AND ${termRefs(filter.categories, params)})`);
  }
  if (filter.tags) refs.push(`(taxonomy = '${TAG}' AND ${termRefs(filter.tags, params)})`);
  // A page that is not full (or an empty first page) holds the last matches: offset plus its
  // rows is the exact total, and the count over every match (an InitPlan PostgreSQL runs only
  // when the CASE reaches it) is skipped.
  const pageRows = '(SELECT count(*) FROM page)';
  const text = `WITH ${filter.categories ? 'RECURSIVE ' : ''}${ctes.join(',\n')}
SELECT
  CASE WHEN ${pageRows} < ${limitParam} AND (${pageRows} > 0 OR ${offsetParam} = 0)
    THEN ${offsetParam} + ${pageRows}
    ELSE (SELECT count(*) FROM cal_events e WHERE ${where}) END AS total,
  (SELECT coalesce(string_agg(row_to_json(p)::text, chr(30) ORDER BY ${orderOut}), '') FROM (
     SELECT ${columns}${filter.near ? ', e.distance' : ''}, ${relationsSql(viewer, params)}
     FROM page e) p) AS events,
  ${refs.length ? `(SELECT coalesce(json_agg(json_build_object('id', id, 'slug', slug, 'taxonomy', taxonomy)), '[]') FROM cal_terms WHERE ${refs.join(' OR ')})` : `'[]'::json`} AS terms,
  ${filter.venueIds ? `(SELECT coalesce(array_agg(id), '{}') FROM cal_venues WHERE id = ANY(${params.p(filter.venueIds)}::int[]))` : `'{}'::int[]`} AS venue_ids,
  ${filter.organizerIds ? `(SELECT coalesce(array_agg(id), '{}') FROM cal_organizers WHERE id = ANY(${params.p(filter.organizerIds)}::int[]))` : `'{}'::int[]`} AS organizer_ids,
  ${filter.postParent !== undefined ? `EXISTS (SELECT 1 FROM cal_events WHERE id = ${params.p(filter.postParent)})` : 'true'} AS parent_exists`;
  return { text, values: params.values };
}

interface JsonEvent extends Omit<EventRow, 'date_utc' | 'modified_utc' | 'start_utc' | 'end_utc'> {
  date_utc: string;
  modified_utc: string;
  start_utc: string;
  end_utc: string;
  terms: TermRow[];
  venue: (Omit<VenueRow, 'date_utc' | 'modified_utc'> & { date_utc: string; modified_utc: string }) | null;
  organizers: (Omit<OrganizerRow, 'date_utc' | 'modified_utc'> & {
    date_utc: string;
    modified_utc: string;
  })[];
}

/** JSON carries timestamps as text: back to Dates for the renderers. */
const withDates = <T extends { date_utc: string; modified_utc: string }>(post: T) => ({
  ...post,
  date_utc: new Date(post.date_utc),
  modified_utc: new Date(post.modified_utc),
});

/** An event of a page (its JSON text as the list statement returns it) as rows for the renderers. */
export const parseEventJson = (text: string) => fromJson(JSON.parse(text) as JsonEvent);

function fromJson(json: JsonEvent): EventWithRelations {
  const { terms, venue, organizers, ...event } = json;
  const row = {
    ...withDates(event),
    start_utc: new Date(event.start_utc),
    end_utc: new Date(event.end_utc),
  } as EventRow;
  return {
    row,
    relations: {
      terms,
      venue: venue ? (withDates(venue) as VenueRow) : null,
      organizers: organizers.map((o) => withDates(o) as OrganizerRow),
    },
  };
}

export async function listEvents(
  knex: Knex,
  filter: EventFilter,
  viewer: Viewer,
  limit: number,
  offset: number,
): Promise<EventPage> {
  const { text, values } = eventListSql(filter, viewer, limit, offset);
  const [result] = await prepared<{
    total: number;
    events: string;
    terms: EventPage['terms'];
    venue_ids: number[];
    organizer_ids: number[];
    parent_exists: boolean;
  }>(knex, text, values);
  return {
    total: Number(result!.total),
    events: result!.events === '' ? [] : result!.events.split(RECORD_SEPARATOR),
    terms: result!.terms,
    venueIds: result!.venue_ids,
    organizerIds: result!.organizer_ids,
    parentExists: result!.parent_exists,
  };
}

/** One event by id or slug, whatever its status, with its relations as `viewer` may see them. */
export async function findEventWithRelations(
  knex: Knex,
  by: { id: number } | { slug: string },
  viewer: Viewer,
): Promise<EventWithRelations | undefined> {
  const params = new Params();
  const where = 'id' in by ? `e.id = ${params.p(by.id)}` : `e.slug = ${params.p(by.slug)}`;
  const text = `SELECT row_to_json(p) AS event FROM (
    SELECT ${columns}, ${relationsSql(viewer, params)} FROM cal_events e WHERE ${where}) p`;
  const [result] = await prepared<{ event: JsonEvent }>(knex, text, params.values);
  return result ? fromJson(result.event) : undefined;
}
