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

/**
 * The zone an event gets from the site: WordPress's default site setting is the offset UTC+0,
 * which The Events Calendar stores and answers as `UTC+0`; CALENDAR_TIMEZONE's default `UTC`
 * stands for it. Other site zones are stored as named.
 */
export const siteZoneLabel = (zone: string) => (zone === 'UTC' ? 'UTC+0' : zone);

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

export const wallAsUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

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
