import ICAL from 'ical.js';
import rrulePackage from 'rrule';
import { isTimezone, toWall, type WallTime, wallAsUtc } from '../dates.js';
import {
  type ImportedEvent,
  type ImportedSchedule,
  ImportFileError,
  lastDayOf,
  type ParseOptions,
} from './model.js';

// rrule ships CommonJS to Node (its ESM build has no `exports` entry): the classes hang off the default.
const { rrulestr } = rrulePackage;

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

/** Physical line numbers, so errors name the line an editor shows (ical.js keeps none). */
class Lines {
  private readonly lines: string[];
  private readonly events: number[] = [];
  constructor(text: string) {
    this.lines = text.split(/\r\n|\n|\r/);
    this.lines.forEach((line, i) => {
      if (/^BEGIN:VEVENT\s*$/i.test(line)) this.events.push(i + 1);
    });
  }
  /** The line of the `index`-th VEVENT's BEGIN. */
  event(index: number): number | undefined {
    return this.events[index];
  }
  /** The line where the `index`-th VEVENT's property `name` starts (else its BEGIN line). */
  property(index: number, name: string): number | undefined {
    const begin = this.events[index];
    if (begin === undefined) return undefined;
    const pattern = new RegExp(`^${name}[;:]`, 'i');
    for (let i = begin; i < this.lines.length && !/^END:VEVENT/i.test(this.lines[i]!); i++) {
      if (pattern.test(this.lines[i]!)) return i + 1;
    }
    return begin;
  }
  /** The first line holding `fragment` (ical.js quotes the line it could not read). */
  find(fragment: string): number | undefined {
    const probe = fragment.slice(0, 40);
    const i = this.lines.findIndex((line) => probe !== '' && line.includes(probe));
    return i < 0 ? undefined : i + 1;
  }
}

const wallOfTime = (t: Time): WallTime => ({
  year: t.year,
  month: t.month,
  day: t.day,
  hour: t.isDate ? 0 : t.hour,
  minute: t.isDate ? 0 : t.minute,
  second: t.isDate ? 0 : t.second,
});

const floating = (w: WallTime) => new Date(wallAsUtc(w));
const wallOfFloating = (d: Date): WallTime => toWall(d, 'UTC');
const compact = (w: WallTime) =>
  `${w.year}${String(w.month).padStart(2, '0')}${String(w.day).padStart(2, '0')}T${String(w.hour).padStart(2, '0')}${String(w.minute).padStart(2, '0')}${String(w.second).padStart(2, '0')}`;

/** The calendar's zones and default, to turn an ical.js time into wall time in a named zone. */
class Zones {
  private readonly custom = new Map<string, InstanceType<typeof ICAL.Timezone>>();
  readonly fallback: string;
  constructor(calendar: Component, siteTimezone: string) {
    for (const vtimezone of calendar.getAllSubcomponents('vtimezone')) {
      const zone = new ICAL.Timezone(vtimezone);
      if (zone.tzid) this.custom.set(zone.tzid, zone);
    }
    const named = calendar.getFirstPropertyValue('x-wr-timezone');
    this.fallback = typeof named === 'string' && isTimezone(named) ? named : siteTimezone;
  }
  /**
   * `t` as wall time in a zone the API knows: its own TZID when that is an IANA name; a UTC time
   * or one in a zone only its VTIMEZONE describes, converted into the calendar's zone; a floating
   * time as it is, in the calendar's zone.
   */
  resolve(t: Time, tzid: string | null): { wall: WallTime; timezone: string } {
    if (t.isDate) return { wall: wallOfTime(t), timezone: tzid && isTimezone(tzid) ? tzid : this.fallback };
    if (tzid && isTimezone(tzid)) return { wall: wallOfTime(t), timezone: tzid };
    const utc = t.zone?.tzid === 'UTC' || (t as { timezone?: string }).timezone === 'Z';
    const custom = tzid ? this.custom.get(tzid) : undefined;
    if (!utc && !custom) {
      if (tzid) throw new Error(`TZID ${tzid} is neither an IANA zone nor described by a VTIMEZONE`);
      return { wall: wallOfTime(t), timezone: this.fallback };
    }
    const instant = utc ? t.toJSDate() : zonedInstant(t, custom!);
    return { wall: toWall(instant, this.fallback), timezone: this.fallback };
  }
}

function zonedInstant(t: Time, zone: InstanceType<typeof ICAL.Timezone>): Date {
  const copy = t.clone();
  copy.zone = zone;
  return new Date(copy.toUnixTime() * 1000);
}

const text = (event: Component, name: string) => {
  const value = event.getFirstPropertyValue(name);
  return typeof value === 'string' ? value : value == null ? '' : String(value);
};

interface Occurrence {
  start: WallTime;
  end: WallTime;
}

/**
 * Reads an iCalendar feed (RFC 5545) with ical.js: each VEVENT by UID (the highest SEQUENCE
 * wins within the file), its DTSTART/DTEND or DURATION in the TZID's zone, LOCATION as the
 * venue, STATUS:CANCELLED; RRULE expanded by `rrule` over the options' window, minus EXDATEs,
 * with RECURRENCE-ID overrides replacing their occurrence. Throws ImportFileError naming the line.
 */
export function parseIcal(content: string, options: ParseOptions): ImportedSchedule {
  const lines = new Lines(content);
  if (!/^\s*BEGIN:VCALENDAR/i.test(content)) {
    throw new ImportFileError('an iCalendar file starts with BEGIN:VCALENDAR', { line: 1 });
  }
  let calendar: Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(content) as unknown as unknown[]);
  } catch (error) {
    const message = (error as Error).message;
    const quoted = /"([^"]*)"\s*$/.exec(message)?.[1];
    throw new ImportFileError(`cannot be read: ${message}`, {
      line: quoted ? lines.find(quoted) : undefined,
    });
  }
  const zones = new Zones(calendar, options.siteTimezone);
  const masters = new Map<string, { event: Component; index: number }>();
  const overrides = new Map<string, { event: Component; index: number }>();
  calendar.getAllSubcomponents('vevent').forEach((event, index) => {
    const uid = text(event, 'uid').trim();
    if (uid === '') throw new ImportFileError('VEVENT without a UID', { line: lines.event(index) });
    const sequence = Number(event.getFirstPropertyValue('sequence') ?? 0) || 0;
    const rid = event.getFirstProperty('recurrence-id');
    const bucket = rid ? overrides : masters;
    const key = rid ? `${uid}\n${String(rid.getFirstValue())}` : uid;
    const seen = bucket.get(key);
    const seenSequence = seen ? Number(seen.event.getFirstPropertyValue('sequence') ?? 0) || 0 : -1;
    if (sequence >= seenSequence) bucket.set(key, { event, index });
  });

  const out = new Map<string, ImportedEvent>();
  const at = (index: number, name: string, error: unknown): never => {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(`${name.toUpperCase()}: ${(error as Error).message}`, {
      line: lines.property(index, name),
    });
  };
  const timeOf = (event: Component, index: number, name: string) => {
    const property = event.getFirstProperty(name);
    if (!property) return undefined;
    try {
      const value = property.getFirstValue() as Time;
      if (!value || typeof value !== 'object' || Number.isNaN(value.year) || Number.isNaN(value.day)) {
        throw new Error('is not a date or date-time');
      }
      return { time: value, ...zones.resolve(value, property.getParameter('tzid') as string | null) };
    } catch (error) {
      return at(index, name, error);
    }
  };

  const base = (event: Component, index: number) => {
    const start = timeOf(event, index, 'dtstart');
    if (!start) throw new ImportFileError('VEVENT without DTSTART', { line: lines.event(index) });
    const endProp = timeOf(event, index, 'dtend');
    let end: WallTime;
    if (endProp) {
      // An end in another zone than the start: the same instant, on the start's clock.
      end =
        endProp.timezone === start.timezone ? endProp.wall : toWall(endProp.time.toJSDate(), start.timezone);
    } else {
      const duration = event.getFirstPropertyValue('duration') as InstanceType<typeof ICAL.Duration> | null;
      const seconds = duration ? duration.toSeconds() : start.time.isDate ? 86_400 : 0;
      end = wallOfFloating(new Date(wallAsUtc(start.wall) + seconds * 1000));
    }
    const allDay = start.time.isDate;
    if (allDay) end = lastDayOf(end);
    if (wallAsUtc(end) < wallAsUtc(start.wall)) {
      throw new ImportFileError('DTEND is before DTSTART', { line: lines.property(index, 'dtend') });
    }
    const uid = text(event, 'uid').trim();
    const record: ImportedEvent = {
      key: uid,
      title: text(event, 'summary').trim() || '(untitled)',
      description: text(event, 'description'),
      excerpt: '',
      start: start.wall,
      end,
      timezone: start.timezone,
      allDay,
      venue: text(event, 'location').trim() || undefined,
      website: text(event, 'url').trim() || undefined,
      cancelled: text(event, 'status').trim().toUpperCase() === 'CANCELLED',
      sequence: Number(event.getFirstPropertyValue('sequence') ?? 0) || 0,
    };
    return record;
  };

  for (const { event, index } of masters.values()) {
    const record = base(event, index);
    const rule = event.getFirstPropertyValue('rrule');
    if (!rule) {
      out.set(record.key, record);
      continue;
    }
    let occurrences: Occurrence[];
    try {
      occurrences = expand(record, String(rule), exdates(event, record, zones), options);
    } catch (error) {
      return at(index, 'rrule', error);
    }
    for (const occurrence of occurrences) {
      const key = `${record.key}#${compact(occurrence.start)}`;
      out.set(key, { ...record, key, ...occurrence });
    }
  }
  // RECURRENCE-ID: this occurrence as the override says (moved, retitled or cancelled).
  for (const { event, index } of overrides.values()) {
    const record = base(event, index);
    const rid = timeOf(event, index, 'recurrence-id')!;
    const master = masters.get(record.key);
    const timezone = master ? base(master.event, master.index).timezone : rid.timezone;
    const ridWall = rid.timezone === timezone ? rid.wall : toWall(rid.time.toJSDate(), timezone);
    const key = `${record.key}#${compact(ridWall)}`;
    out.set(key, { ...record, key });
  }
  const name = text(calendar, 'x-wr-calname').trim();
  return { name: name || undefined, events: [...out.values()] };
}

/** EXDATEs as wall times in the event's zone (`YYYYMMDDTHHMMSS`; a date alone excludes its day). */
function exdates(event: Component, record: ImportedEvent, zones: Zones): Set<string> {
  const out = new Set<string>();
  for (const property of event.getAllProperties('exdate')) {
    const tzid = property.getParameter('tzid') as string | null;
    for (const value of property.getValues() as Time[]) {
      if (value.isDate) {
        out.add(compact(wallOfTime(value)).slice(0, 8));
        continue;
      }
      const resolved = zones.resolve(value, tzid);
      const wall =
        resolved.timezone === record.timezone ? resolved.wall : toWall(value.toJSDate(), record.timezone);
      out.add(compact(wall));
    }
  }
  return out;
}

/**
 * The occurrences of `record` under `rule` inside the window. Expanded on the wall clock (rrule
 * sees wall times as UTC), so a 10:00 service stays at 10:00 across daylight-saving changes.
 */
function expand(record: ImportedEvent, rule: string, excluded: Set<string>, options: ParseOptions) {
  const length = wallAsUtc(record.end) - wallAsUtc(record.start);
  // A UNTIL in UTC is moved onto the event's wall clock, a date-only UNTIL includes its day.
  const text = rule.replace(
    /UNTIL=(\d{8})(T(\d{6})(Z?))?/i,
    (_all, date: string, time?: string, hms?: string, z?: string) => {
      if (!time) return `UNTIL=${date}T235959Z`;
      if (!z) return `UNTIL=${date}T${hms}Z`;
      const instant = new Date(
        `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${hms!.slice(0, 2)}:${hms!.slice(2, 4)}:${hms!.slice(4, 6)}Z`,
      );
      return `UNTIL=${compact(toWall(instant, record.timezone))}Z`;
    },
  );
  const parsed = rrulestr(`RRULE:${text}`, { dtstart: floating(record.start) });
  const nowWall = wallAsUtc(toWall(options.now, record.timezone));
  const from = new Date(nowWall - options.pastDays * 86_400_000);
  const to = new Date(nowWall + options.horizonDays * 86_400_000);
  const starts = parsed.between(from, to, true, (_date, count) => count < options.maxOccurrences);
  return starts
    .map((date) => wallOfFloating(date))
    .filter((start) => !excluded.has(compact(start)) && !excluded.has(compact(start).slice(0, 8)))
    .map((start) => ({
      start,
      end: record.allDay
        ? { ...wallOfFloating(new Date(wallAsUtc(start) + length)), hour: 23, minute: 59, second: 59 }
        : wallOfFloating(new Date(wallAsUtc(start) + length)),
    }));
}
