import * as chrono from 'chrono-node';

/** Wall-clock fields of a moment in some timezone (month is 1-12). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export interface DateDetails {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, found);
  }
  return found;
}

/**
 * `UTC+9`, `UTC-3:30`, `UTC+05:30`: the fixed offsets The Events Calendar emits and accepts (a
 * WordPress site set to a manual offset). Their offset in ms, or undefined for other names.
 */
export function fixedOffset(name: string): number | undefined {
  const match = /^UTC([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(name);
  if (!match) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  if (Number(match[2]) > 14 || Number(match[3] ?? 0) >= 60) return undefined;
  return (match[1] === '-' ? -1 : 1) * minutes * 60_000;
}

/** True when `name` is an IANA timezone this runtime knows, `UTC`, or a `UTC±H[:MM]` offset. */
export function isTimezone(name: string): boolean {
  if (fixedOffset(name) !== undefined) return true;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

const utcFields = (instant: Date): WallTime => ({
  year: instant.getUTCFullYear(),
  month: instant.getUTCMonth() + 1,
  day: instant.getUTCDate(),
  hour: instant.getUTCHours(),
  minute: instant.getUTCMinutes(),
  second: instant.getUTCSeconds(),
});

// Offsets only change on quarter hours in every zone: cache them per zone and quarter hour.
const QUARTER = 900_000;
const DAY = 86_400_000;
const offsets = new Map<string, number>();

/** What to add to the UTC instant `ms` to read the wall clock of `timeZone` (ms). */
function offsetAt(ms: number, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  const fixed = fixedOffset(timeZone);
  if (fixed !== undefined) return fixed;
  const key = `${timeZone}|${Math.floor(ms / QUARTER)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const parts: Record<string, number> = {};
    for (const part of formatter(timeZone).formatToParts(new Date(ms))) {
      if (part.type !== 'literal') parts[part.type] = Number(part.value);
    }
    const wall = {
      year: parts.year!,
      month: parts.month!,
      day: parts.day!,
      hour: parts.hour!,
      minute: parts.minute!,
      second: parts.second!,
    };
    // Intl truncates to the second towards the past, also before 1970 where `ms % 1000` is negative.
    offset = wallAsUtc(wall) - Math.floor(ms / 1000) * 1000;
    if (offsets.size > 50_000) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

/** Wall-clock fields of `instant` as seen in `timeZone`. */
export function toWall(instant: Date, timeZone: string): WallTime {
  if (timeZone === 'UTC') return utcFields(instant);
  const ms = instant.getTime();
  return utcFields(new Date(ms + offsetAt(ms, timeZone)));
}

const wallAsUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/**
 * The instant at which the clocks of `timeZone` show `wall`, resolved as PHP's DateTime does: in a
 * DST overlap the earlier instant (still summer time); in a DST gap the wall time moved forward by
 * the gap (02:30 in a 02:00->03:00 gap is 03:30), so callers that need the wall time the instant
 * really shows read it back with toWall.
 */
export function fromWall(wall: WallTime, timeZone: string): Date {
  const local = wallAsUtc(wall);
  // A transition near the wall time shows as different offsets a day before and after it; each
  // offset gives a candidate, valid when the zone really has that offset at the candidate.
  const before = offsetAt(local - DAY, timeZone);
  const after = offsetAt(local + DAY, timeZone);
  const valid = [local - before, local - after]
    .filter((candidate) => offsetAt(candidate, timeZone) === local - candidate)
    .sort((a, b) => a - b);
  // No valid candidate: a gap. Reading the wall with the offset from before the gap lands past it.
  return new Date(valid[0] ?? local - before);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYY-MM-DD HH:mm:ss`, the format of every date the API reads and writes. */
export function formatWall(w: WallTime): string {
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
}

export function formatInstant(instant: Date, timeZone: string): string {
  return formatWall(toWall(instant, timeZone));
}

export function details(w: WallTime): DateDetails {
  return {
    year: pad(w.year, 4),
    month: pad(w.month),
    day: pad(w.day),
    hour: pad(w.hour),
    minutes: pad(w.minute),
    seconds: pad(w.second),
  };
}

/** Parses the API's own `YYYY-MM-DD HH:mm:ss` (as stored) back into wall fields. */
export function parseWall(text: string): WallTime {
  const [date = '', time = '00:00:00'] = text.split(' ');
  const [year, month, day] = date.split('-').map(Number);
  const [hour, minute, second] = time.split(':').map(Number);
  return { year: year!, month: month!, day: day!, hour: hour!, minute: minute!, second: second ?? 0 };
}

export const startOfDay = (w: WallTime): WallTime => ({ ...w, hour: 0, minute: 0, second: 0 });
export const endOfDay = (w: WallTime): WallTime => ({ ...w, hour: 23, minute: 59, second: 59 });

export function addMonths(w: WallTime, months: number): WallTime {
  const total = w.year * 12 + (w.month - 1) + months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { ...w, year, month, day: Math.min(w.day, last) };
}

export function addDays(w: WallTime, days: number): WallTime {
  const shifted = new Date(Date.UTC(w.year, w.month - 1, w.day + days, w.hour, w.minute, w.second));
  return {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    hour: shifted.getUTCHours(),
    minute: shifted.getUTCMinutes(),
    second: shifted.getUTCSeconds(),
  };
}

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

/** The tz database's name of a zone at an instant (`JST`), when it has one. */
export type AbbreviationLookup = (timeZone: string, instant: Date, offsetMs: number) => string | undefined;

/**
 * Short name of the zone at `instant`: `UTC`, the offset itself for `UTC±H` zones, the tz
 * database's abbreviation through `lookup` (`JST`, `CEST`), else Intl's (`GMT+2` where it has none).
 */
export function timezoneAbbr(timeZone: string, instant: Date, lookup?: AbbreviationLookup): string {
  if (timeZone === 'UTC') return 'UTC';
  if (fixedOffset(timeZone) !== undefined) return timeZone;
  const named = lookup?.(timeZone, instant, offsetAt(instant.getTime(), timeZone));
  if (named) return named;
  let fallback: string | undefined;
  for (const locale of ['en-US', 'en-GB']) {
    const name = abbrFormatter(locale, timeZone)
      .formatToParts(instant)
      .find((part) => part.type === 'timeZoneName')?.value;
    if (name && !name.startsWith('GMT') && !name.startsWith('UTC')) return name;
    fallback ??= name;
  }
  return fallback ?? timeZone;
}

const abbrFormatters = new Map<string, Intl.DateTimeFormat>();

function abbrFormatter(locale: string, timeZone: string): Intl.DateTimeFormat {
  const key = `${locale} ${timeZone}`;
  let found = abbrFormatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' });
    abbrFormatters.set(key, found);
  }
  return found;
}
