import { formatInstant } from './dates.js';
import type { DateBounds } from './listing.js';
import { restBase, type Site } from './render.js';
import type { EventListQuery } from './schemas.js';

/*
 * The `rest_url`, `next_rest_url` and `previous_rest_url` of TEC's event list, built as its PHP
 * builds them: Archive_Base::get_current_rest_url repeats the resolved query arguments (not the
 * request's text) through WordPress's add_query_arg, whose quirks a client sees and so are kept.
 */

/** A query argument; `undefined` removes it, as add_query_arg's `false`. */
export type QueryArg = [name: string, value: string | number | undefined];

/** PHP's urlencode: spaces as `+`, everything but letters, digits and `-_.` percent-encoded. */
export function phpUrlencode(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

function phpUrldecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/**
 * WordPress's add_query_arg( $args, $url ): the arguments already in the URL are parsed and
 * urlencoded again (urlencode_deep), the new ones go in as they are (build_query does not
 * encode), a new value of an existing name keeps its place, `name=` with nothing after becomes
 * `name`, and a URL left with no query loses its `?`.
 */
export function addQueryArgs(url: string, args: QueryArg[]): string {
  const at = url.indexOf('?');
  const base = at < 0 ? url : url.slice(0, at);
  const query = new Map<string, string>();
  for (const piece of at < 0 ? [] : url.slice(at + 1).split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = phpUrldecode(eq < 0 ? piece : piece.slice(0, eq));
    query.set(name, phpUrlencode(eq < 0 ? '' : phpUrldecode(piece.slice(eq + 1))));
  }
  for (const [name, value] of args) {
    if (value === undefined) query.delete(name);
    else query.set(name, String(value));
  }
  const text = [...query].map(([name, value]) => `${name}=${value}`).join('&');
  return `${base}?${text.replace(/=(&|$)/g, '$1')}`.replace(/\?$/, '');
}

export interface ListUrls {
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
}

/**
 * Archive_Event::get: `rest_url` is get_current_rest_url( $args, $extra_rest_args ) (the
 * arguments, then the extra ones in a second add_query_arg, which encodes the first ones);
 * get_next_rest_url and get_previous_rest_url remove `page` (encoding all) and append the new
 * one, page 1 having none.
 */
export function tecListUrls(
  base: string,
  args: QueryArg[],
  extra: QueryArg[],
  page: { page: number; totalPages: number },
): ListUrls {
  let rest = addQueryArgs(base, args);
  if (extra.length > 0) rest = addQueryArgs(rest, extra);
  const urls: ListUrls = { rest_url: rest };
  const withoutPage = () => addQueryArgs(rest, [['page', undefined]]);
  if (page.page < page.totalPages)
    urls.next_rest_url = addQueryArgs(withoutPage(), [['page', page.page + 1]]);
  if (page.page > 1) {
    urls.previous_rest_url =
      page.page === 2 ? withoutPage() : addQueryArgs(withoutPage(), [['page', page.page - 1]]);
  }
  return urls;
}

/** What an event list resolved, in the site's wall time (`YYYY-MM-DD HH:mm:ss`). */
export interface ResolvedEventQuery {
  page: number;
  perPage: number;
  dates: Partial<
    Record<
      'start_date' | 'end_date' | 'starts_before' | 'starts_after' | 'ends_before' | 'ends_after',
      string
    >
  >;
  /** The asked statuses, or TEC's `any` / `publish` by the caller's edit_posts. */
  status: string;
  search?: string;
  geoloc?: boolean;
  geoloc_lat?: number;
  geoloc_lng?: number;
  post_parent?: number;
  include?: number[];
  ticketed?: boolean;
  venue?: number[];
  organizer?: number[];
  featured?: boolean;
}

/** PHP's true in a query is `1`; add_query_arg drops a false. */
const flag = (value: boolean | undefined) => (value ? 1 : undefined);

/**
 * The arguments of an event list's `rest_url`, in the order of Archive_Event's
 * `$supported_query_vars` (page, per_page, start_date, end_date, search, geoloc..., status,
 * post_parent, include, starts_/ends_..., ticketed), and its extra ones (venue, organizer,
 * featured). Categories and tags go into a tax_query there, so the URL never repeats them.
 */
export function eventListArgs(q: ResolvedEventQuery): { args: QueryArg[]; extra: QueryArg[] } {
  const args: QueryArg[] = [
    ['page', q.page],
    ['per_page', q.perPage],
    ['start_date', q.dates.start_date],
    ['end_date', q.dates.end_date],
    ['search', q.search],
  ];
  if (q.geoloc)
    args.push(['geoloc', 1], ['geoloc_lat', q.geoloc_lat ?? ''], ['geoloc_lng', q.geoloc_lng ?? '']);
  args.push(
    ['status', q.status],
    ['post_parent', q.post_parent],
    ['include', q.include?.join(',')],
    ['starts_before', q.dates.starts_before],
    ['starts_after', q.dates.starts_after],
    ['ends_before', q.dates.ends_before],
    ['ends_after', q.dates.ends_after],
    ['ticketed', flag(q.ticketed)],
  );
  // Given extras are kept even when false: their add_query_arg still runs and encodes the rest.
  const extra: QueryArg[] = [];
  if (q.venue) extra.push(['venue', q.venue.join(',')]);
  if (q.organizer) extra.push(['organizer', q.organizer.join(',')]);
  if (q.featured !== undefined) extra.push(['featured', flag(q.featured)]);
  return { args: args.filter(([, value]) => value !== undefined), extra };
}

/**
 * The links of an event list as TEC answers them, repeating what the list resolved: its page and
 * clamped per_page, the date bounds in the site's wall time, the statuses (`any` for callers with
 * edit_posts, `publish` for the others, when none was asked).
 */
export function eventListUrls(
  query: EventListQuery,
  resolved: { perPage: number; bounds: DateBounds; mayEdit: boolean },
  site: Site,
  page: { page: number; totalPages: number },
): ListUrls {
  const { bounds } = resolved;
  const wall = (instant: Date | undefined) => instant && formatInstant(instant, site.timezone);
  // With `include` TEC unsets start_date and end_date; the relative bounds stay.
  const window = query.include === undefined;
  const { args, extra } = eventListArgs({
    ...query,
    perPage: resolved.perPage,
    dates: {
      start_date: window ? wall(bounds.startFrom) : undefined,
      end_date: window ? wall(bounds.endUntil) : undefined,
      starts_before: wall(bounds.startsBefore),
      starts_after: wall(bounds.startsAfter),
      ends_before: wall(bounds.endsBefore),
      ends_after: wall(bounds.endsAfter),
    },
    status: query.status?.join(',') ?? (resolved.mayEdit ? 'any' : 'publish'),
  });
  return tecListUrls(`${restBase(site)}/events/`, args, extra, page);
}
