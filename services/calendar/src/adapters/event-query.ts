import type { Knex } from 'knex';
import type { Viewer } from '../domain/auth.js';
import type { DateBounds } from '../domain/listing.js';
import { searchPlan } from '../domain/search.js';
import { eventColumns, eventTextsSql, relationsSql, splitEventTexts } from './event-json.js';
import { containsPattern } from './like.js';
import { type KnownPage, NOTHING_KNOWN, type PageKey } from './list-memo.js';
import { Params, prepared } from './sql.js';

/*
 * A page of events in ONE statement: the ids of the page, its events with their relations as
 * JSON, the total and the filter references that exist. A list costs one round trip, prepared
 * once per connection. The text depends only on which filters are present, so a handful of
 * statement names cover every request. What the process already knows under the data's
 * generation (list-memo.ts) the statement skips: the count, and the events' JSON.
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

export interface EventPage {
  key: PageKey;
  /** The data generation the statement read (null without cal_generation's row). */
  generation: string | null;
  total: number;
  /** The page's event ids, in order. */
  ids: number[];
  /** The JSON texts (parseEventJson) of the page's events, in order, but for the skipped ones. */
  events: string[];
  /** Terms matched by the category/tag references, to name the unknown ones. */
  terms: { id: number; slug: string; taxonomy: string }[];
  venueIds: number[];
  organizerIds: number[];
  parentExists: boolean;
}

const CATEGORY = 'cal_events_cat';
const TAG = 'post_tag';

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
    // With a full-text search, the start bounds are written so that no index can serve them
    // (`+ interval '0'`): the generic plan otherwise ANDs the search index's few matches with
    // the listing index's whole window (8,854 entries read at 10k events, to drop 82 matches).
    const fulltext = filter.search?.trim() && searchPlan(filter.search.trim()).kind === 'fulltext';
    const bound = (column: string, op: string, value: Date | undefined) => {
      const side = fulltext && column === 'start_utc' ? `(e.${column} + interval '0')` : `e.${column}`;
      if (value) where.push(`${side} ${op} ${params.p(value)}::timestamptz`);
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
 * The statement of a page of events; `total` counted over the same conditions. `known` is told
 * the page's key and answers what the caller knows under a data generation: when that
 * generation is still current, the statement skips the count (a known total >= 0) and the JSON
 * of the page's events among `skip` (the caller has them rendered).
 */
export function eventListSql(
  filter: EventFilter,
  viewer: Viewer,
  limit: number,
  offset: number,
  known: (key: PageKey) => KnownPage = () => NOTHING_KNOWN,
) {
  const params = new Params();
  const where = whereSql(filter, viewer, params);
  const ctes: string[] = [];
  if (filter.categories) {
    ctes.push(`cat_tree AS (
         SELECT id FROM cal_terms WHERE taxonomy = '${CATEGORY}' AND ${termRefs(filter.categories, params)}
         UNION SELECT t.id FROM cal_terms t JOIN cat_tree c ON t.parent = c.id WHERE t.taxonomy = '${CATEGORY}')`);
  }
  const undated = params.values.map((value) => (value instanceof Date ? null : value));
  const count = JSON.stringify([where, ctes, params.values]);
  const key = {
    count,
    shape: JSON.stringify([where, ctes, undated, limit, offset]),
    page: `${count}\n${limit}\n${offset}`,
  };
  const { generation, total, skip, exact } = known(key);
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
  const limitParam = params.p(limit);
  const offsetParam = params.p(offset);
  ctes.push('generation AS (SELECT value::text AS value FROM cal_generation)');
  const unchanged = `coalesce((SELECT value FROM generation) = ${params.p(generation)}::text, false)`;
  const knownTotal = `${params.p(total)}::bigint`;
  const exactIds = `${params.p(exact)}::int[]`;
  // The page known exactly under an unchanged generation: the page's scan sits under a one-time
  // filter (a condition without columns), so PostgreSQL does not start it; the ids come from
  // the caller. A category's page otherwise probes the term links of every event it passes.
  const pageKnown = `(${exactIds} IS NOT NULL AND ${unchanged})`;
  // Only what orders the page: the default window's page (and the rows an offset skips) is then
  // read from cal_events_listing alone, and rows are fetched for the page's events only.
  const pageColumns = `e.id, e.start_utc${filter.include ? ', e.date_utc' : ''}${extra}`;
  ctes.push(`page AS MATERIALIZED (SELECT ${pageColumns} FROM cal_events e WHERE NOT ${pageKnown}
           AND ${where} ORDER BY ${order} LIMIT ${limitParam} OFFSET ${offsetParam})`);
  const refs: string[] = [];
  if (filter.categories) {
    refs.push(`(taxonomy = '${CATEGORY}' AND ${termRefs(filter.categories, params)})`);
  }
  if (filter.tags) refs.push(`(taxonomy = '${TAG}' AND ${termRefs(filter.tags, params)})`);
  // A count known under the same generation is the total; else a page that is not full (or an
  // empty first page) holds the last matches: offset plus its rows is the exact total, and the
  // count over every match (an InitPlan PostgreSQL runs only when the CASE reaches it) is
  // skipped. The known total goes first: it does not read the page.
  const pageRows = '(SELECT count(*) FROM page)';
  const text = `WITH ${filter.categories ? 'RECURSIVE ' : ''}${ctes.join(',\n')}
SELECT
  (SELECT value FROM generation) AS generation,
  CASE WHEN ${unchanged} AND ${knownTotal} >= 0 THEN ${knownTotal}
    WHEN ${pageRows} < ${limitParam} AND (${pageRows} > 0 OR ${offsetParam} = 0)
    THEN ${offsetParam} + ${pageRows}
    ELSE (SELECT count(*) FROM cal_events e WHERE ${where}) END AS total,
  CASE WHEN ${pageKnown} THEN ${exactIds}
    ELSE (SELECT coalesce(array_agg(p.id ORDER BY ${orderOut}), '{}') FROM page p) END AS ids,
  (SELECT ${eventTextsSql(orderOut)} FROM (
     SELECT ${eventColumns}${filter.near ? ', page.distance' : ''}, ${relationsSql(viewer, params)}
     FROM page JOIN cal_events e ON e.id = page.id
     WHERE NOT (${unchanged} AND page.id = ANY(${params.p(skip)}::int[]))) p) AS events,
  ${refs.length ? `(SELECT coalesce(json_agg(json_build_object('id', id, 'slug', slug, 'taxonomy', taxonomy)), '[]') FROM cal_terms WHERE ${refs.join(' OR ')})` : `'[]'::json`} AS terms,
  ${filter.venueIds ? `(SELECT coalesce(array_agg(id), '{}') FROM cal_venues WHERE id = ANY(${params.p(filter.venueIds)}::int[]))` : `'{}'::int[]`} AS venue_ids,
  ${filter.organizerIds ? `(SELECT coalesce(array_agg(id), '{}') FROM cal_organizers WHERE id = ANY(${params.p(filter.organizerIds)}::int[]))` : `'{}'::int[]`} AS organizer_ids,
  ${filter.postParent !== undefined ? `EXISTS (SELECT 1 FROM cal_events WHERE id = ${params.p(filter.postParent)})` : 'true'} AS parent_exists`;
  return { text, values: params.values, key };
}

/** A page of events in one statement (see eventListSql), skipping what `known` answers. */
export async function listEvents(
  knex: Knex,
  filter: EventFilter,
  viewer: Viewer,
  limit: number,
  offset: number,
  known?: (key: PageKey) => KnownPage,
): Promise<EventPage> {
  const { text, values, key } = eventListSql(filter, viewer, limit, offset, known);
  const [result] = await prepared<{
    generation: string | null;
    total: number;
    ids: number[];
    events: string;
    terms: EventPage['terms'];
    venue_ids: number[];
    organizer_ids: number[];
    parent_exists: boolean;
  }>(knex, text, values);
  return {
    key,
    generation: result!.generation,
    total: Number(result!.total),
    ids: result!.ids,
    events: splitEventTexts(result!.events),
    terms: result!.terms,
    venueIds: result!.venue_ids,
    organizerIds: result!.organizer_ids,
    parentExists: result!.parent_exists,
  };
}
