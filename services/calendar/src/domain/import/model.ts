import { addDays, fromWall, type WallTime } from '../dates.js';

/**
 * What an imported schedule says, whatever its format: events keyed by the feed's own stable
 * identifier (iCalendar UID, plus the occurrence for recurring events; frab guid), in wall-clock
 * time of a named zone, with the room as a venue name. The importer compares this with what is
 * stored under the same keys, so a second import updates instead of duplicating.
 */
export interface ImportedEvent {
  /** Stable across re-exports: `UID`, `UID#20260105T100000` for an occurrence, or the frab guid. */
  key: string;
  title: string;
  description: string;
  excerpt: string;
  start: WallTime;
  end: WallTime;
  /** IANA zone (or `UTC`) the wall times are in. */
  timezone: string;
  allDay: boolean;
  /** The room (LOCATION, frab room): a venue found by name or created once. */
  venue?: string;
  website?: string;
  /** STATUS:CANCELLED in the feed. */
  cancelled: boolean;
  /** iCalendar SEQUENCE (0 for frab): an older revision never overwrites a newer one. */
  sequence: number;
}

export interface ImportedSchedule {
  /** A name for the feed when the request gives none (conference acronym, calendar name). */
  name?: string;
  events: ImportedEvent[];
}

export type ImportFormat = 'ical' | 'frab-json' | 'frab-xml';

/** Where a bad file is bad: an iCalendar line, or the path of a JSON member / XML element. */
export interface ImportLocation {
  line?: number;
  path?: string;
}

/** A file that cannot be imported; nothing is changed. The message names the line or element. */
export class ImportFileError extends Error {
  override name = 'ImportFileError';
  constructor(
    message: string,
    readonly location: ImportLocation = {},
  ) {
    const where =
      location.line !== undefined ? `line ${location.line}: ` : location.path ? `${location.path}: ` : '';
    super(`${where}${message}`);
  }
}

/** Options the parsers share: the site's zone for floating times, and the recurrence window. */
export interface ParseOptions {
  siteTimezone: string;
  now: Date;
  /** Occurrences of a recurring event are expanded from `now - pastDays` ... */
  pastDays: number;
  /** ... to `now + horizonDays`; further ones come with a later import. */
  horizonDays: number;
  /** At most this many occurrences per recurring event. */
  maxOccurrences: number;
}

export const defaultParseOptions = (siteTimezone: string, now: Date): ParseOptions => ({
  siteTimezone,
  now,
  pastDays: 31,
  horizonDays: 366,
  maxOccurrences: 1000,
});

/** The instant a wall time means in its zone. */
export const instantOf = (wall: WallTime, timezone: string) => fromWall(wall, timezone);

/** An all-day span ends the evening before its exclusive end date. */
export const lastDayOf = (exclusiveEnd: WallTime): WallTime => ({
  ...addDays(exclusiveEnd, -1),
  hour: 23,
  minute: 59,
  second: 59,
});
