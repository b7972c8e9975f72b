/** Reading the dates clients send: formats, ranges and the zone they are meant in. */
import * as chrono from 'chrono-node';
import { fromWall, toWall, type WallTime, wallAsUtc } from './dates.js';

/** A parsed date: either an exact instant (timestamp, ISO with offset) or wall time in a zone. */
export type ParsedDate = { kind: 'instant'; instant: Date } | { kind: 'wall'; wall: WallTime };

// Every date the API writes is a 4-digit-year `YYYY-MM-DD HH:mm:ss` (and Date.UTC reads years below
// 100 as 19xx), so dates must fall in years 1000-9999 both in UTC and in the zone; PostgreSQL
// timestamptz alone would take 4713 BC-294276 AD, but out-of-range values failed there as 500s.
const MIN_YEAR = 1000;
const MAX_YEAR = 9999;
const yearInRange = (year: number) => year >= MIN_YEAR && year <= MAX_YEAR;

function inRange(instant: Date, timeZone: string): boolean {
  // The UTC year first: Intl would print a BC year without its era and so pass the zone check.
  return (
    Number.isFinite(instant.getTime()) &&
    yearInRange(instant.getUTCFullYear()) &&
    yearInRange(toWall(instant, timeZone).year)
  );
}

// chrono turns an impossible month into a day (`2030-13-01` as 13 January, `13/01/2030` likewise)
// where strtotime refuses it: the numbers written must be the ones read, year-month-day for the
// ISO order and month/day/year (PHP's American order) for slashes.
const YEAR_FIRST = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?!\d)/;
const MONTH_FIRST = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?!\d)/;

function readsAsWritten(text: string, wall: WallTime): boolean {
  const yearFirst = YEAR_FIRST.exec(text);
  if (yearFirst) return Number(yearFirst[2]) === wall.month && Number(yearFirst[3]) === wall.day;
  const monthFirst = MONTH_FIRST.exec(text);
  if (monthFirst) return Number(monthFirst[1]) === wall.month && Number(monthFirst[2]) === wall.day;
  return true;
}

/**
 * Reads what the API accepts as a date: unix timestamps, `YYYY-MM-DD[ HH:mm[:ss]]`, ISO 8601 and
 * relative English (`tomorrow 9am`, `+5 days 11am`, `next wednesday 4pm`), the last ones through
 * chrono relative to `now` as seen in `timeZone`. Returns undefined when the whole text is not a
 * date, names an impossible one (`2030-13-01`, `2030-02-30`) or falls outside years 1000-9999.
 * Times of day follow PHP's strtotime: a date, weekday, `today`, `tomorrow`, `yesterday` or
 * `midnight` without a time means 00:00; `+5 days`, `10 days ago` and `next month` keep the time
 * of `now`; `+2 hours` is now plus two hours. A wall time in a DST gap comes back moved forward by
 * the gap, the same wall time fromWall resolves it to.
 */
export function parseDate(
  input: string | number,
  timeZone: string,
  now: Date = new Date(),
): ParsedDate | undefined {
  const text = String(input).trim();
  if (text === '') return undefined;
  if (/^-?\d{9,}$/.test(text)) {
    const instant = new Date(Number(text) * 1000);
    return inRange(instant, timeZone) ? { kind: 'instant', instant } : undefined;
  }
  // chrono reads relative expressions against a Date's local fields: give it the zone's wall clock.
  const wallNow = toWall(now, timeZone);
  const reference = new Date(
    wallNow.year,
    wallNow.month - 1,
    wallNow.day,
    wallNow.hour,
    wallNow.minute,
    wallNow.second,
  );
  const results = chrono.parse(text, reference, { forwardDate: false });
  const result = results[0];
  if (!result || results.length !== 1 || result.index !== 0 || result.text.length !== text.length) {
    return undefined;
  }
  const start = result.start;
  const tags = result.tags();
  if (tags.has('casualReference/now')) return { kind: 'instant', instant: now };
  if (tags.has('result/relativeDateAndTime')) {
    // Hours/minutes from now are elapsed time; chrono's fields are the zone's wall clock stamped
    // with the process's offset, so only its distance from the reference means anything.
    const instant = new Date(now.getTime() + (start.date().getTime() - reference.getTime()));
    return inRange(instant, timeZone) ? { kind: 'instant', instant } : undefined;
  }
  const wall: WallTime = {
    year: start.get('year')!,
    month: start.get('month')!,
    day: start.get('day')!,
    hour: 0,
    minute: 0,
    second: 0,
  };
  // chrono implies the reference's time of day everywhere; strtotime keeps it only for shifts.
  if (start.isCertain('hour') || tags.has('result/relativeDate')) {
    wall.hour = start.get('hour')!;
    wall.minute = start.get('minute') ?? 0;
    wall.second = start.get('second') ?? 0;
  }
  if (tags.has('casualReference/midnight')) {
    // chrono reads a bare `midnight` as the coming one (and `+5 days midnight` as noon); PHP as
    // 00:00 of the day given, today when none is.
    Object.assign(wall, { hour: 0, minute: 0, second: 0 });
    const dated = (['year', 'month', 'day', 'weekday'] as const).some((unit) => start.isCertain(unit));
    if (!dated) Object.assign(wall, { year: wallNow.year, month: wallNow.month, day: wallNow.day });
  }
  if (!isValidWall(wall) || !readsAsWritten(text, wall)) return undefined;
  if (start.isCertain('timezoneOffset')) {
    const offset = start.get('timezoneOffset') ?? 0;
    const instant = new Date(wallAsUtc(wall) - offset * 60_000);
    return inRange(instant, timeZone) ? { kind: 'instant', instant } : undefined;
  }
  const instant = fromWall(wall, timeZone);
  if (!inRange(instant, timeZone)) return undefined;
  return { kind: 'wall', wall: toWall(instant, timeZone) };
}

function isValidWall(w: WallTime): boolean {
  if (![w.year, w.month, w.day, w.hour, w.minute, w.second].every(Number.isInteger)) return false;
  const check = new Date(Date.UTC(w.year, w.month - 1, w.day));
  return check.getUTCMonth() === w.month - 1 && check.getUTCDate() === w.day && yearInRange(w.year);
}

/** Wall time in `timeZone` of a parsed date. */
export function wallOf(parsed: ParsedDate, timeZone: string): WallTime {
  return parsed.kind === 'wall' ? parsed.wall : toWall(parsed.instant, timeZone);
}
