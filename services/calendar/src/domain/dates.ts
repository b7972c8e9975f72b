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

/** True when `name` is an IANA timezone this runtime knows (or `UTC`). */
export function isTimezone(name: string): boolean {
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
const offsets = new Map<string, number>();

/** Wall-clock fields of `instant` as seen in `timeZone`. */
export function toWall(instant: Date, timeZone: string): WallTime {
  if (timeZone === 'UTC') return utcFields(instant);
  const ms = instant.getTime();
  const key = `${timeZone}|${Math.floor(ms / QUARTER)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const parts: Record<string, number> = {};
    for (const part of formatter(timeZone).formatToParts(instant)) {
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
    offset = wallAsUtc(wall) - (ms - (ms % 1000));
    if (offsets.size > 50_000) offsets.clear();
    offsets.set(key, offset);
  }
  return utcFields(new Date(ms + offset));
}

const wallAsUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/** The instant at which the clocks of `timeZone` show `wall` (the earlier one in a DST overlap). */
export function fromWall(wall: WallTime, timeZone: string): Date {
  const guess = wallAsUtc(wall);
  // Two passes of "subtract the offset seen at the guess" settle on the right side of a DST change.
  let instant = guess - (wallAsUtc(toWall(new Date(guess), timeZone)) - guess);
  instant = guess - (wallAsUtc(toWall(new Date(instant), timeZone)) - instant);
  return new Date(instant);
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

/**
 * Reads what the API accepts as a date: unix timestamps, `YYYY-MM-DD[ HH:mm[:ss]]`, ISO 8601 and
 * relative English (`tomorrow 9am`, `+5 days 11am`, `next wednesday 4pm`), the last ones through
 * chrono relative to `now` as seen in `timeZone`. Returns undefined when the whole text is not a
 * date. A date without a time of day means its midnight, as PHP's strtotime reads it.
 */
export function parseDate(
  input: string | number,
  timeZone: string,
  now: Date = new Date(),
): ParsedDate | undefined {
  const text = String(input).trim();
  if (text === '') return undefined;
  if (/^-?\d{9,}$/.test(text)) return { kind: 'instant', instant: new Date(Number(text) * 1000) };
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
  const hasTime = start.isCertain('hour');
  const wall: WallTime = {
    year: start.get('year')!,
    month: start.get('month')!,
    day: start.get('day')!,
    hour: hasTime ? start.get('hour')! : 0,
    minute: hasTime ? (start.get('minute') ?? 0) : 0,
    second: hasTime ? (start.get('second') ?? 0) : 0,
  };
  if (!isValidWall(wall)) return undefined;
  if (start.isCertain('timezoneOffset') && text !== 'now') {
    const offset = start.get('timezoneOffset') ?? 0;
    return { kind: 'instant', instant: new Date(wallAsUtc(wall) - offset * 60_000) };
  }
  if (text.toLowerCase() === 'now') return { kind: 'instant', instant: now };
  return { kind: 'wall', wall };
}

function isValidWall(w: WallTime): boolean {
  if (![w.year, w.month, w.day, w.hour, w.minute, w.second].every(Number.isInteger)) return false;
  const check = new Date(Date.UTC(w.year, w.month - 1, w.day));
  return (
    check.getUTCMonth() === w.month - 1 && check.getUTCDate() === w.day && w.year >= 1000 && w.year <= 9999
  );
}

/** Wall time in `timeZone` of a parsed date. */
export function wallOf(parsed: ParsedDate, timeZone: string): WallTime {
  return parsed.kind === 'wall' ? parsed.wall : toWall(parsed.instant, timeZone);
}

/** Short name of the zone at `instant` (`UTC`, `CET`, `EDT`...; `GMT+2` where Intl has no name). */
export function timezoneAbbr(timeZone: string, instant: Date): string {
  if (timeZone === 'UTC') return 'UTC';
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
