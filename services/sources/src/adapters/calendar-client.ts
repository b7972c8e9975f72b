/**
 * The calendar as any integration reads it: The Events Calendar's REST API v1 (our calendar
 * service, or a WordPress site running TEC). The scheduler reads a venue's events anonymously (the
 * public schedule: what is published is what gets captioned) and writes each talk's `captions`
 * extension field with an editor's token.
 */
import type { Talk, TalkCaptions, TalkTranscript } from '../domain/schedule.js';

const TIMEOUT_MS = 10_000;
/** A venue's events in a day or two: more than this many pages is not a venue's schedule. */
const MAX_PAGES = 20;
const EVENTS = 'events';
const CANCELLED = 'https://schema.org/EventCancelled';

export class CalendarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CalendarError';
  }
}

interface EventJson {
  id?: unknown;
  title?: unknown;
  utc_start_date?: unknown;
  utc_end_date?: unknown;
  json_ld?: { eventStatus?: unknown };
  captions?: unknown;
}

/** `2026-12-08 09:00:00` (TEC's UTC fields) as epoch ms. */
const utc = (value: unknown): number =>
  typeof value === 'string' ? Date.parse(`${value.replace(' ', 'T')}Z`) : Number.NaN;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The field as the calendar holds it, in one key order (so two reads compare as strings). */
export function readCaptions(value: unknown): TalkCaptions | null {
  const field = value as Partial<TalkCaptions> | null | undefined;
  if (!field || typeof field !== 'object' || typeof field.room !== 'string') return null;
  const transcripts: TalkTranscript[] = Array.isArray(field.transcripts)
    ? field.transcripts.map((t: Partial<TalkTranscript>) => ({
        track: text(t?.track),
        srt: text(t?.srt),
        vtt: text(t?.vtt),
        txt: text(t?.txt),
      }))
    : [];
  return { room: field.room, live: typeof field.live === 'string' ? field.live : null, transcripts };
}

/** A listed event as a talk; undefined for a cancelled one or one without usable times. */
export function talkOf(event: EventJson): Talk | undefined {
  const start = utc(event.utc_start_date);
  const end = utc(event.utc_end_date);
  if (typeof event.id !== 'number' || Number.isNaN(start) || Number.isNaN(end)) return undefined;
  if (event.json_ld?.eventStatus === CANCELLED) return undefined;
  return { id: event.id, title: text(event.title), start, end, captions: readCaptions(event.captions) };
}

/** The list's date parameters as Unix timestamps: an instant whatever the site's time zone. */
const param = (ms: number) => String(Math.floor(ms / 1000));

export class CalendarClient {
  private readonly base: string;

  /** `apiRoot`: the REST namespace's address (`…/wp-json/cal/events/v1/`, `…/wp-json/tribe/events/v1/`). */
  constructor(
    baseUrl: string,
    private readonly token: string | undefined,
  ) {
    this.base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  }

  /**
   * The published, not cancelled events at a venue that end after `from` and start before `to`
   * (every page). Throws a CalendarError when the calendar does not answer as TEC does.
   */
  async venueTalks(venue: number, from: number, to: number): Promise<Talk[]> {
    const talks: Talk[] = [];
    for (let page = 1; page <= MAX_PAGES; page += 1) {
      const query = new URLSearchParams({
        venue: String(venue),
        ends_after: param(from),
        starts_before: param(to),
        strict_dates: 'true',
        per_page: '50',
        page: String(page),
      });
      const response = await this.call(`${EVENTS}?${query}`, { method: 'GET' });
      // TEC answers a venue without events (or a page past the end) 404 `rest_no_events`... or
      // 200 with an empty list, as its version decides: both are "no more talks".
      if (response.status === 404) {
        await response.body?.cancel();
        return talks;
      }
      if (!response.ok) throw await this.refusal(response, 'events list');
      const body = (await response.json().catch(() => undefined)) as
        | { events?: EventJson[]; total_pages?: number }
        | undefined;
      if (!Array.isArray(body?.events))
        throw new CalendarError('calendar answered the events list without events');
      for (const event of body.events) {
        const talk = talkOf(event);
        if (talk) talks.push(talk);
      }
      if (page >= Number(body.total_pages ?? 1)) return talks;
    }
    return talks;
  }

  /** Writes a talk's `captions` field (TEC's update: a POST to the event carrying only it). */
  async setCaptions(eventId: number, captions: TalkCaptions | null): Promise<void> {
    if (!this.token) throw new CalendarError('no calendar token (SOURCES_CALENDAR_TOKEN) to write with');
    const response = await this.call(`${EVENTS}/${eventId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
      body: JSON.stringify({ captions }),
    });
    if (!response.ok) throw await this.refusal(response, `event ${eventId}`);
    await response.body?.cancel();
  }

  private async call(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${this.base}${path}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new CalendarError(`calendar unreachable (${cause})`);
    }
  }

  private async refusal(response: Response, what: string): Promise<CalendarError> {
    const body = (await response.json().catch(() => undefined)) as { code?: string } | undefined;
    return new CalendarError(
      `calendar answered ${response.status} ${body?.code ?? ''} for the ${what}`.trim(),
    );
  }
}
