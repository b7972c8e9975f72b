import { type ParsedDate, parseDate, wallOf } from './date-parse.js';
import { addDays, addMonths, endOfDay, fromWall, startOfDay, toWall, type WallTime } from './dates.js';
import { type ApiError, invalidParam, refusals } from './errors.js';

/** Most items one page may hold; larger per_page values are clamped. */
export const MAX_PER_PAGE = 50;

export const clampPerPage = (perPage: number) => Math.min(perPage, MAX_PER_PAGE);

export interface DateBounds {
  /** start >= */
  startFrom?: Date;
  /** end <= */
  endUntil?: Date;
  startsAfter?: Date;
  startsBefore?: Date;
  endsAfter?: Date;
  endsBefore?: Date;
}

export interface DateQuery {
  start_date?: string;
  end_date?: string;
  starts_before?: string;
  starts_after?: string;
  ends_before?: string;
  ends_after?: string;
  strict_dates: boolean;
}

/**
 * The date window of an event list, as The Events Calendar reads it: by default from yesterday
 * 00:00 to the end of the day 24 months from now (site time; strict_dates: yesterday 23:59 to
 * now + 24 months); any starts_ or ends_ bound drops the defaults that were not
 * given; without strict_dates, start_date goes to the start of its day and every other bound to
 * the end of its day.
 */
export function dateBounds(query: DateQuery, timeZone: string, now: Date = new Date()): DateBounds {
  const read = (name: keyof DateQuery): ParsedDate | undefined => {
    const value = query[name];
    if (value === undefined || typeof value === 'boolean') return undefined;
    const parsed = parseDate(value, timeZone, now);
    if (!parsed) throw invalidParam(name, `${name} is not a valid date.`);
    return parsed;
  };
  const strict = query.strict_dates;
  const at = (parsed: ParsedDate | undefined, widen: (w: WallTime) => WallTime): Date | undefined => {
    if (!parsed) return undefined;
    if (strict) return parsed.kind === 'instant' ? parsed.instant : fromWall(parsed.wall, timeZone);
    return fromWall(widen(wallOf(parsed, timeZone)), timeZone);
  };
  const relative = ['starts_before', 'starts_after', 'ends_before', 'ends_after'] as const;
  const hasRelative = relative.some((name) => query[name] !== undefined);
  const today = toWall(now, timeZone);
  const bounds: DateBounds = {
    startFrom: at(read('start_date'), startOfDay),
    endUntil: at(read('end_date'), endOfDay),
    startsAfter: at(read('starts_after'), endOfDay),
    startsBefore: at(read('starts_before'), endOfDay),
    endsAfter: at(read('ends_after'), endOfDay),
    endsBefore: at(read('ends_before'), endOfDay),
  };
  // TEC's defaults are the arguments' own ('yesterday 23:59', '+24 months'), widened to whole
  // days like given ones unless strict_dates (Archive_Event::get, READ_args).
  if (!hasRelative) {
    const yesterday = { ...addDays(today, -1), hour: 23, minute: 59, second: 0 };
    const later = addMonths(today, 24);
    bounds.startFrom ??= fromWall(strict ? yesterday : startOfDay(yesterday), timeZone);
    bounds.endUntil ??= fromWall(strict ? later : endOfDay(later), timeZone);
  }
  return bounds;
}

export interface Page {
  page: number;
  perPage: number;
  total: number;
  totalPages: number;
}

/**
 * Paging of a list. A page > 1 past the end is `pastEnd` (events, venues, organizers: 404), or,
 * without one, an empty page (terms: WP_REST_Terms_Controller::get_items has no such check).
 */
export function paginate(page: number, perPage: number, total: number, pastEnd?: () => ApiError): Page {
  const totalPages = Math.ceil(total / perPage);
  if (pastEnd && page > 1 && page > totalPages) throw pastEnd();
  return { page, perPage, total, totalPages };
}

export const pastEndOf = (kind: 'event' | 'venue' | 'organizer') => () => refusals.archivePageNotFound(kind);
