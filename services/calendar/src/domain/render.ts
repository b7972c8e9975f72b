import type { EventCaptions } from './captions.js';
import { type Currency, costDetails, displayCost } from './cost.js';
import { type AbbreviationLookup, details, formatInstant, parseWall, timezoneAbbr, toWall } from './dates.js';
import { compact, permalink, postText } from './post-parts.js';

/** Where the API lives, as the caller reached it; every URL in a response is built from it. */
export interface Site {
  /** `http://host:port` */
  origin: string;
  /** `/wp-json` */
  restRoot: string;
  namespace: string;
  timezone: string;
  /** The tz database's zone abbreviations (`JST`), where the system has them. */
  abbreviations?: AbbreviationLookup;
  /** The site's currency settings, for costs. */
  currency: Currency;
}

export const restBase = (site: Site) => `${site.origin}${site.restRoot}/${site.namespace}`;
const host = (site: Site) => site.origin.replace(/^[a-z]+:\/\//, '');

export interface PostRow {
  id: number;
  author: number;
  status: string;
  title: string;
  description: string;
  excerpt: string;
  slug: string;
  date_utc: Date;
  modified_utc: Date;
  image: string | null;
}

export interface VenueRow extends PostRow {
  address: string | null;
  city: string | null;
  country: string | null;
  province: string | null;
  state: string | null;
  zip: string | null;
  phone: string | null;
  website: string | null;
  stateprovince: string | null;
  geo_lat: number | null;
  geo_lng: number | null;
  show_map: boolean;
  show_map_link: boolean;
}

export interface OrganizerRow extends PostRow {
  phone: string | null;
  website: string | null;
  email: string | null;
}

export interface EventRow extends PostRow {
  password: string;
  all_day: boolean;
  start_local: string;
  end_local: string;
  start_utc: Date;
  end_utc: Date;
  timezone: string;
  cost: string | null;
  website: string | null;
  show_map: boolean;
  show_map_link: boolean;
  hide_from_listings: boolean;
  sticky: boolean;
  featured: boolean;
  ticketed: boolean;
  post_parent: number | null;
  venue_id: number | null;
  /** `cancelled` when a schedule import cancelled it (migration 0007); rows read before carry none. */
  event_status?: string;
  /** Our `captions` extension (migration 0008, domain/captions.ts). */
  captions?: EventCaptions | null;
}

export interface TermRow {
  id: number;
  taxonomy: string;
  name: string;
  slug: string;
  description: string;
  parent: number;
  count: number;
}

export const taxonomies = { categories: 'cal_events_cat', tags: 'post_tag' } as const;
export type TermKind = keyof typeof taxonomies;
export const kindOfTaxonomy = (taxonomy: string): TermKind =>
  taxonomy === 'post_tag' ? 'tags' : 'categories';

function termUrls(row: TermRow, site: Site) {
  const collection = `${restBase(site)}/${kindOfTaxonomy(row.taxonomy)}`;
  const urls: Record<string, string> = { self: `${collection}/${row.id}`, collection };
  if (row.taxonomy !== taxonomies.tags && row.parent) urls.up = `${collection}/${row.parent}`;
  return urls;
}

/**
 * A term of the term routes in The Events Calendar's key order; tags carry no `parent`. A
 * category's `url` is its archive under its ancestors' slugs (`path`, e.g. `music/jazz`), as
 * WordPress builds hierarchical term links.
 */
export function renderTerm(row: TermRow, site: Site, path = row.slug) {
  const kind = kindOfTaxonomy(row.taxonomy);
  return {
    id: row.id,
    count: row.count,
    description: row.description,
    name: row.name,
    slug: row.slug,
    taxonomy: row.taxonomy,
    ...(kind === 'categories' ? { parent: row.parent } : {}),
    meta: [],
    url:
      kind === 'categories' ? `${site.origin}/events/category/${path}/` : `${site.origin}/tag/${row.slug}/`,
    urls: termUrls(row, site),
  };
}

/** A term inside an event: the WP_Term fields The Events Calendar answers there, in its order. */
export function renderEventTerm(row: TermRow, site: Site) {
  return {
    name: row.name,
    slug: row.slug,
    term_group: 0,
    term_taxonomy_id: row.id,
    taxonomy: row.taxonomy,
    description: row.description,
    parent: row.parent,
    count: row.count,
    filter: 'raw',
    id: row.id,
    urls: termUrls(row, site),
  };
}

export function renderImage(image: string | null) {
  if (!image) return false as const;
  const id = /^\d+$/.test(image) ? Number(image) : 0;
  const url = id ? '' : image;
  const extension = /\.([a-z0-9]+)(?:$|[?#])/i.exec(url)?.[1]?.toLowerCase() ?? '';
  return { url, id, extension, width: null, height: null, sizes: {} };
}

function postDates(row: PostRow, site: Site) {
  return {
    date: formatInstant(row.date_utc, site.timezone),
    date_utc: formatInstant(row.date_utc, 'UTC'),
    modified: formatInstant(row.modified_utc, site.timezone),
    modified_utc: formatInstant(row.modified_utc, 'UTC'),
  };
}

const globalIds = (row: PostRow, site: Site) => {
  const id = `${host(site)}?id=${row.id}`;
  return { global_id: id, global_id_lineage: [id] };
};

/** The post fields venues and organizers share; the title goes out under the kind's name. */
function postFields(row: PostRow, site: Site, kind: 'venue' | 'organizer') {
  return {
    id: row.id,
    author: String(row.author),
    status: row.status,
    ...postDates(row, site),
    url: permalink(row, site, kind),
    [kind]: row.title,
    description: postText(row.description),
    excerpt: postText(row.excerpt),
    slug: row.slug,
    image: row.image ? renderImage(row.image) : null,
  };
}

export function renderVenue(row: VenueRow, site: Site) {
  return {
    ...compact({
      ...postFields(row, site, 'venue'),
      address: row.address,
      city: row.city,
      country: row.country,
      province: row.province,
      state: row.state,
      zip: row.zip,
      phone: row.phone,
      website: row.website,
      stateprovince: row.stateprovince,
      geo_lat: row.geo_lat,
      geo_lng: row.geo_lng,
    }),
    show_map: row.show_map,
    show_map_link: row.show_map_link,
    ...globalIds(row, site),
  };
}

export function renderOrganizer(row: OrganizerRow, site: Site) {
  return {
    ...compact({
      ...postFields(row, site, 'organizer'),
      phone: row.phone,
      website: row.website,
      email: row.email,
    }),
    ...globalIds(row, site),
  };
}

/** An event's related rows as stored (terms of both taxonomies together). */
export interface RawRelations {
  terms: TermRow[];
  venue: VenueRow | null;
  organizers: OrganizerRow[];
}

/** Relations rendered once per distinct record: a page often repeats venues and organizers. */
export function renderRelations(raw: RawRelations, site: Site, memo = new Map<string, unknown>()) {
  const once = <T>(key: string, make: () => T): T => {
    let found = memo.get(key) as T | undefined;
    if (found === undefined) {
      found = make();
      memo.set(key, found);
    }
    return found;
  };
  const term = (t: TermRow) => once(`t${t.id}`, () => renderEventTerm(t, site));
  return {
    categories: raw.terms.filter((t) => t.taxonomy !== taxonomies.tags).map(term),
    tags: raw.terms.filter((t) => t.taxonomy === taxonomies.tags).map(term),
    venue: raw.venue ? once(`v${raw.venue.id}`, () => renderVenue(raw.venue!, site)) : undefined,
    organizers: raw.organizers.map((o) => once(`o${o.id}`, () => renderOrganizer(o, site))),
  };
}

export type EventRelations = ReturnType<typeof renderRelations>;

/**
 * An event as The Events Calendar answers it, fields in its order. `locked` (a protected event
 * listed without its password) blanks what the password protects, as The Events Calendar does:
 * texts, cost, website, image and relations emptied, booleans `null`.
 */
export function renderEvent(row: EventRow, relations: EventRelations, site: Site, locked = false) {
  const start = parseWall(row.start_local);
  const end = parseWall(row.end_local);
  const url = permalink(row, site, 'event');
  const flag = (value: boolean) => (locked ? null : value);
  const cost = locked ? '' : row.cost;
  return {
    id: row.id,
    ...globalIds(row, site),
    author: String(row.author),
    status: row.status,
    ...postDates(row, site),
    url,
    rest_url: `${restBase(site)}/events/${row.id}`,
    title: row.title,
    description: locked ? '' : postText(row.description),
    excerpt: locked ? '' : postText(row.excerpt),
    slug: row.slug,
    image: locked ? false : renderImage(row.image),
    all_day: flag(row.all_day),
    start_date: row.start_local,
    start_date_details: details(start),
    end_date: row.end_local,
    end_date_details: details(end),
    utc_start_date: formatInstant(row.start_utc, 'UTC'),
    utc_end_date: formatInstant(row.end_utc, 'UTC'),
    utc_start_date_details: details(toWall(row.start_utc, 'UTC')),
    utc_end_date_details: details(toWall(row.end_utc, 'UTC')),
    timezone: row.timezone,
    timezone_abbr: timezoneAbbr(row.timezone, row.start_utc, site.abbreviations),
    cost: displayCost(cost, site.currency),
    cost_details: costDetails(cost),
    website: locked ? '' : row.website || url,
    show_map: flag(row.show_map),
    show_map_link: flag(row.show_map_link),
    hide_from_listings: flag(row.hide_from_listings),
    sticky: flag(row.sticky),
    featured: flag(row.featured),
    ticketed: flag(row.ticketed),
    categories: locked ? [] : relations.categories,
    tags: locked ? [] : relations.tags,
    venue: locked ? [] : (relations.venue ?? []),
    organizer: locked ? [] : relations.organizers,
    custom_fields: [],
    // Our extension, after TEC's keys: its clients ignore it.
    captions: locked ? null : (row.captions ?? null),
  };
}
