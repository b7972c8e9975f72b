import type { Knex } from 'knex';
import type { ReadScope, Viewer } from '../domain/auth.js';
import type { EventRow, OrganizerRow, RawRelations, TermRow, VenueRow } from '../domain/render.js';
import { Params, prepared } from './sql.js';

/*
 * An event with its categories, tags, venue and organizers as ONE JSON text that PostgreSQL
 * builds, and back to rows for the renderers. The list statement and the single-event reads
 * share these columns, so an event reads the same whichever way it was fetched.
 */

export interface EventWithRelations {
  row: EventRow;
  relations: RawRelations;
}

export const eventColumns = `e.id, e.author, e.status, e.title, e.description, e.excerpt, e.slug, e.date_utc,
  e.modified_utc, e.image, e.password, e.all_day,
  to_char(e.start_local, 'YYYY-MM-DD HH24:MI:SS') AS start_local,
  to_char(e.end_local, 'YYYY-MM-DD HH24:MI:SS') AS end_local,
  e.start_utc, e.end_utc, e.timezone, e.cost, e.website, e.show_map, e.show_map_link,
  e.hide_from_listings, e.sticky, e.featured, e.ticketed, e.post_parent, e.venue_id, e.event_status,
  e.captions`;

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
export function relationsSql(viewer: Viewer, params: Params): string {
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

/**
 * Separates the events' JSON texts in one text column. JSON escapes every control character
 * inside strings, so the separator can only appear between two events.
 */
const RECORD_SEPARATOR = '\x1e';

/** `string_agg` of the JSON texts of the rows aliased `p`, in `order`; '' when none. */
export const eventTextsSql = (order: string) =>
  `coalesce(string_agg(row_to_json(p)::text, chr(30) ORDER BY ${order}), '')`;

/** The column built by eventTextsSql as one JSON text per event. */
export const splitEventTexts = (column: string): string[] =>
  column === '' ? [] : column.split(RECORD_SEPARATOR);

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

/** An event as one of its JSON texts (see eventTextsSql) as rows for the renderers. */
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

/** One event by id or slug, whatever its status, with its relations as `viewer` may see them. */
export async function findEventWithRelations(
  knex: Knex,
  by: { id: number } | { slug: string },
  viewer: Viewer,
): Promise<EventWithRelations | undefined> {
  const params = new Params();
  const where = 'id' in by ? `e.id = ${params.p(by.id)}` : `e.slug = ${params.p(by.slug)}`;
  const text = `SELECT row_to_json(p) AS event FROM (
    SELECT ${eventColumns}, ${relationsSql(viewer, params)} FROM cal_events e WHERE ${where}) p`;
  const [result] = await prepared<{ event: JsonEvent }>(knex, text, params.values);
  return result ? fromJson(result.event) : undefined;
}
