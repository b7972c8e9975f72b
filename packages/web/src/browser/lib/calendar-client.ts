/**
 * The pages' reader of the calendar (The Events Calendar REST v1 at `SITE_CONFIG.calendarApiUrl`:
 * our calendar service, or a WordPress site running TEC): its venues, and the talks at the rooms'
 * venues between two instants, each with the transcripts of its `captions` extension field (the
 * scheduler writes it once a talk ended). Anonymous, as any visitor reads the published schedule;
 * no cookies. Browser-safe, `fetch` injectable; every failure is a `ServiceRequestError`.
 */
import { ServiceRequestError } from './service-request.js';

const SERVICE = 'calendar';
const PER_PAGE = 50;
/** Pages read of one list at most: 1000 talks of a day, 1000 venues, is past any conference. */
const MAX_PAGES = 20;
/** Venue ids in one events query (the calendar takes at most 100). */
const VENUES_PER_QUERY = 50;
const CANCELLED = 'https://schema.org/EventCancelled';

export interface Venue {
  id: number;
  name: string;
}

export interface TalkTranscript {
  /** `original` or a language tag (`de`, `pt-BR`). */
  track: string;
  srt: string;
  vtt: string;
  txt: string;
}

export interface Talk {
  id: number;
  venue: number;
  title: string;
  /** Epoch ms. */
  start: number;
  end: number;
  /** The talk's page on the calendar's site, or null. */
  link: string | null;
  /** One per track once the talk ended; only http(s) links. */
  transcripts: TalkTranscript[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * A title as text: WordPress titles are HTML (`Rock &amp; Roll`, `<em>…</em>`). Shown with
 * `textContent`, so this only makes it read right; nothing of it is ever parsed as markup.
 */
export function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .trim();
}

/** An http(s) address, or null: a `javascript:` link from the calendar never becomes an href. */
export function safeLink(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** TEC's UTC fields (`2026-12-08 09:00:00`) as epoch ms. */
const utc = (value: unknown): number =>
  typeof value === 'string' ? Date.parse(`${value.replace(' ', 'T')}Z`) : Number.NaN;

function transcriptsOf(captions: unknown): TalkTranscript[] {
  const list = (captions as { transcripts?: unknown } | null)?.transcripts;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item: Partial<Record<keyof TalkTranscript, unknown>>) => {
    const srt = safeLink(item?.srt);
    const vtt = safeLink(item?.vtt);
    const txt = safeLink(item?.txt);
    const track = typeof item?.track === 'string' ? item.track : '';
    return track && srt && vtt && txt ? [{ track, srt, vtt, txt }] : [];
  });
}

/** A listed event as a talk; undefined without a venue or times, or cancelled. */
export function talkOf(event: Record<string, unknown>): Talk | undefined {
  const start = utc(event.utc_start_date);
  const end = utc(event.utc_end_date);
  const venue = (event.venue as { id?: unknown } | undefined)?.id;
  if (typeof event.id !== 'number' || typeof venue !== 'number') return undefined;
  if (Number.isNaN(start) || Number.isNaN(end)) return undefined;
  if ((event.json_ld as { eventStatus?: unknown } | undefined)?.eventStatus === CANCELLED) return undefined;
  return {
    id: event.id,
    venue,
    title: plainText(typeof event.title === 'string' ? event.title : ''),
    start,
    end,
    link: safeLink(event.url),
    transcripts: transcriptsOf(event.captions),
  };
}

/** One page of a list; null past the last page (TEC answers a page past the end with a 404). */
async function page(
  fetcher: typeof fetch,
  url: URL,
  key: string,
): Promise<{ items: Record<string, unknown>[]; pages: number } | null> {
  let response: Response;
  try {
    response = await fetcher(url, { credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ServiceRequestError(`The ${SERVICE} cannot be reached`, 0);
  }
  if (response.status === 404) return null;
  if (!response.ok) {
    const body = (await response.json().catch(() => undefined)) as { message?: unknown } | undefined;
    const why = typeof body?.message === 'string' ? `: ${body.message}` : '';
    throw new ServiceRequestError(`The ${SERVICE} answered ${response.status}${why}`, response.status);
  }
  const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  const items = body?.[key];
  if (!Array.isArray(items))
    throw new ServiceRequestError(`The ${SERVICE} answered without ${key}`, response.status);
  return { items, pages: Number(body?.total_pages ?? 1) || 1 };
}

async function everyPage(
  fetcher: typeof fetch,
  base: string,
  path: string,
  query: Record<string, string>,
  key: string,
  pages = MAX_PAGES,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let n = 1; n <= pages; n += 1) {
    const url = new URL(path, base);
    url.search = new URLSearchParams({ ...query, per_page: String(PER_PAGE), page: String(n) }).toString();
    const got = await page(fetcher, url, key);
    if (!got) break;
    items.push(...got.items);
    if (n >= got.pages) break;
  }
  return items;
}

const defaultFetch: typeof fetch = (...args) => fetch(...args);

/** Every published venue: its id and name. */
export async function calendarVenues(base: string, fetcher = defaultFetch): Promise<Venue[]> {
  const items = await everyPage(fetcher, base, 'venues', {}, 'venues');
  return items.flatMap((item) =>
    typeof item.id === 'number' ? [{ id: item.id, name: plainText(String(item.venue ?? '')) }] : [],
  );
}

/** Seconds since the epoch: an instant whatever the calendar's time zone (`strict_dates`). */
const instant = (ms: number) => String(Math.floor(ms / 1000));

/**
 * The talks at `venues` (ids the calendar knows: an unknown one fails the whole query) that end
 * after `from` and start before `to`, in start order.
 */
export async function calendarTalks(
  base: string,
  venues: readonly number[],
  from: number,
  to: number,
  fetcher = defaultFetch,
): Promise<Talk[]> {
  const window = { ends_after: instant(from), starts_before: instant(to) };
  return eventsOf(base, venues, window, fetcher, MAX_PAGES);
}

/** The first talks at `venues` starting after `after`: the first page only (the soonest). */
export async function calendarTalksAfter(
  base: string,
  venues: readonly number[],
  after: number,
  fetcher = defaultFetch,
): Promise<Talk[]> {
  return eventsOf(base, venues, { starts_after: instant(after) }, fetcher, 1);
}

async function eventsOf(
  base: string,
  venues: readonly number[],
  window: Record<string, string>,
  fetcher: typeof fetch,
  pages: number,
): Promise<Talk[]> {
  const talks: Talk[] = [];
  for (let at = 0; at < venues.length; at += VENUES_PER_QUERY) {
    const query = {
      ...window,
      strict_dates: 'true',
      venue: venues.slice(at, at + VENUES_PER_QUERY).join(','),
    };
    for (const item of await everyPage(fetcher, base, 'events', query, 'events', pages)) {
      const talk = talkOf(item);
      if (talk) talks.push(talk);
    }
  }
  return talks.sort((a, b) => a.start - b.start || a.id - b.id);
}
