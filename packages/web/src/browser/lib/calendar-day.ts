/**
 * The calendar as the pages keep it between two reads: its venues (names, and which ids it
 * knows), and the day's talks at the venues the rooms follow, plus for a venue with nothing left
 * today its first talk after. A failed read keeps what the last one gave (a calendar restarting
 * does not empty the pages) and says why in `problem`. Read anonymously, as any visitor.
 */
import {
  calendarTalks,
  calendarTalksAfter,
  calendarVenues,
  type Talk,
  type Venue,
} from './calendar-client.js';
import { dayOf, type RoomDay, roomDay } from './room-talks.js';
import { requestProblem } from './service-request.js';

export class CalendarDay {
  /** The calendar's venues by id; empty until the first read answered. */
  venues = new Map<number, Venue>();
  /** Why the last read failed; undefined when it worked. */
  problem: string | undefined;
  #read = false;
  #today = new Map<number, Talk[]>();
  #later = new Map<number, Talk>();
  #busy = false;

  constructor(
    private readonly baseUrl: string,
    private readonly fetcher?: typeof fetch,
  ) {}

  /** Whether a read has answered: until then no venue is said to be missing. */
  get read(): boolean {
    return this.#read;
  }

  /** Reads the venues and the day of `venueIds` (the rooms' venues); one read at a time. */
  async refresh(venueIds: Iterable<number>, now = Date.now()): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const venues = await calendarVenues(this.baseUrl, this.fetcher);
      // Only ids the calendar knows: one it does not (a venue deleted) would fail the whole query.
      const known = new Set(venues.map((venue) => venue.id));
      const asked = [...new Set(venueIds)].filter((id) => known.has(id)).sort((a, b) => a - b);
      const { from, to } = dayOf(now);
      const talks = asked.length ? await calendarTalks(this.baseUrl, asked, from, to, this.fetcher) : [];
      const waiting = asked.filter((id) => !talks.some((talk) => talk.venue === id && talk.end > now));
      const after = waiting.length ? await calendarTalksAfter(this.baseUrl, waiting, to, this.fetcher) : [];
      this.venues = new Map(venues.map((venue) => [venue.id, venue]));
      this.#today = groupByVenue(talks);
      this.#later = new Map();
      for (const talk of after) if (!this.#later.has(talk.venue)) this.#later.set(talk.venue, talk);
      this.#read = true;
      this.problem = undefined;
    } catch (error) {
      this.problem = requestProblem(error);
    } finally {
      this.#busy = false;
    }
  }

  /** The venue's day as of `now`. */
  day(venue: number, now = Date.now()): RoomDay {
    return roomDay(this.#today.get(venue) ?? [], now, this.#later.get(venue));
  }

  /** False only once the calendar answered without this venue. */
  knows(venue: number): boolean {
    return !this.#read || this.venues.has(venue);
  }
}

function groupByVenue(talks: readonly Talk[]): Map<number, Talk[]> {
  const byVenue = new Map<number, Talk[]>();
  for (const talk of talks) {
    const list = byVenue.get(talk.venue);
    if (list) list.push(talk);
    else byVenue.set(talk.venue, [talk]);
  }
  return byVenue;
}
