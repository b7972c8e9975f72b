/**
 * What the board and the public page say about a room bound to a calendar venue (pure): its
 * schedule in words, and from the venue's talks of the day its current talk, its next one and
 * the talks that ended (those carry their transcripts). Times in the reader's zone, through the
 * formats given (the pages give the reader's locale; the tests a fixed one).
 */
import type { CaptionRoomSchedule } from '@live-captions/protocol';
import type { Talk } from './calendar-client.js';

export interface RoomDay {
  /** The talk under way (of overlapping ones, the one that started last). */
  current: Talk | undefined;
  /** The next talk to start: today's, or failing that the first one known after today. */
  next: Talk | undefined;
  /** Today's talks that ended, in programme order. */
  finished: Talk[];
}

export interface TimeFormats {
  /** `10:30` */
  time(ms: number): string;
  /** `Mon 14 Dec` */
  day(ms: number): string;
}

/** The reader's own formats (locale and zone of the browser). */
export function readerFormats(locale?: string): TimeFormats {
  const time = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' });
  const day = new Intl.DateTimeFormat(locale, { weekday: 'short', day: 'numeric', month: 'short' });
  return { time: (ms) => time.format(ms), day: (ms) => day.format(ms) };
}

/** Midnight of `now`'s day and of the next one in the reader's zone (a DST day has 23 or 25 h). */
export function dayOf(now: number): { from: number; to: number } {
  const start = new Date(now);
  start.setHours(0, 0, 0, 0);
  const end = new Date(start);
  end.setDate(end.getDate() + 1);
  return { from: start.getTime(), to: end.getTime() };
}

/** `talks`: the venue's talks of the day; `later`: its first talk after the day, when known. */
export function roomDay(talks: readonly Talk[], now: number, later?: Talk): RoomDay {
  const ordered = [...talks].sort((a, b) => a.start - b.start || a.id - b.id);
  const running = ordered.filter((talk) => talk.start <= now && now < talk.end);
  const current = running.at(-1);
  const next = ordered.find((talk) => talk.start > now) ?? (later && later.start > now ? later : undefined);
  return { current, next, finished: ordered.filter((talk) => talk.end <= now) };
}

/** 300 -> `5 min`, 90 -> `90 s`. */
export function duration(seconds: number): string {
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

/**
 * The room's schedule in words: "By hand", "Follows venue Janson (lead 5 min, tail 5 min)", or
 * the hand that wins over it ("Held on by hand · venue Janson"). `venueName`: undefined while the
 * calendar's venues are not known, then the venue is named by its id.
 */
export function scheduleLine(schedule: CaptionRoomSchedule | null, venueName: string | undefined): string {
  if (!schedule) return 'By hand';
  const venue = `venue ${venueName ?? schedule.venue}`;
  if (schedule.hold === 'on') return `Held on by hand · ${venue}`;
  if (schedule.hold === 'off') return `Held off by hand · ${venue}`;
  return `Follows ${venue} (lead ${duration(schedule.leadSeconds)}, tail ${duration(schedule.tailSeconds)})`;
}

/** "at 11:00", or "on Mon 14 Dec at 11:00" for a talk on another day than `now`'s. */
export function whenLine(talk: Talk, now: number, formats: TimeFormats): string {
  const sameDay = dayOf(talk.start).from === dayOf(now).from;
  return sameDay
    ? `at ${formats.time(talk.start)}`
    : `on ${formats.day(talk.start)} at ${formats.time(talk.start)}`;
}

/**
 * The board's line of a bound room: its talk now, else its next one. The time before the title:
 * a narrow column cuts a long title, never the time.
 */
export function talkLine(day: RoomDay, now: number, formats: TimeFormats): string {
  if (day.current) return `Now, until ${formats.time(day.current.end)}: ${day.current.title}`;
  if (day.next) return `Next ${whenLine(day.next, now, formats)}: ${day.next.title}`;
  return 'No more talks today';
}

/** "10:00–10:30" */
export function spanLine(talk: Talk, formats: TimeFormats): string {
  return `${formats.time(talk.start)}–${formats.time(talk.end)}`;
}

/** "10:00–10:30", or "Tue 9 Dec, 10:00–10:30" for a talk on another day than `now`'s. */
export function daySpanLine(talk: Talk, now: number, formats: TimeFormats): string {
  const span = spanLine(talk, formats);
  return dayOf(talk.start).from === dayOf(now).from ? span : `${formats.day(talk.start)}, ${span}`;
}

/** A transcript track's name: "Original language" or the language's name. */
export function trackName(track: string, languageName: (code: string) => string): string {
  return track === 'original' ? 'Original language' : languageName(track);
}
