import { describe, expect, it } from '@jest/globals';
import type { CaptionRoomSchedule } from '@live-captions/protocol';
import { isCancelled, readCaptions, talkOf } from '../src/adapters/calendar-client.js';
import { captionsFor, fieldDue, inWindow, shouldRun, type Talk, talkAt } from '../src/domain/schedule.js';
import { parseScheduleClock } from '../src/domain/schedule-clock.js';

const MIN = 60_000;
const schedule: CaptionRoomSchedule = { venue: 1, leadSeconds: 300, tailSeconds: 300, hold: null };
const talk = (id: number, startMin: number, endMin: number): Talk => ({
  id,
  title: `Talk ${id}`,
  start: startMin * MIN,
  end: endMin * MIN,
  captions: null,
});
// 10:00-10:30, 10:30-11:00 back to back, then 12:00-12:20 after a gap (minutes from midnight).
const day = [talk(1, 600, 630), talk(2, 630, 660), talk(3, 720, 740)];

describe('the schedule of a room bound to a venue', () => {
  it('runs from the lead before a talk to the tail after it, through back-to-back talks', () => {
    const at = (minute: number) => inWindow(day, schedule, minute * MIN);
    expect([at(594), at(595), at(600), at(659), at(664), at(665)]).toEqual([
      false,
      true,
      true,
      true,
      true,
      false,
    ]);
    expect([at(714), at(715), at(744), at(745)]).toEqual([false, true, true, false]);
    // Overlapping talks (a parallel track in the same room) keep it running too.
    expect(inWindow([talk(4, 600, 700), talk(5, 620, 640)], schedule, 690 * MIN)).toBe(true);
  });

  it('lets the hand win, and changes nothing before anything was read', () => {
    expect(shouldRun(day, { ...schedule, hold: 'on' }, 0, true, false)).toBe(true);
    expect(shouldRun(day, { ...schedule, hold: 'off' }, 610 * MIN, true, true)).toBe(false);
    expect(shouldRun(undefined, schedule, 610 * MIN, false, false)).toBeUndefined();
    expect(shouldRun(undefined, { ...schedule, hold: 'on' }, 0, false, false)).toBe(true);
  });

  it('starts talks from the last schedule while the calendar is away, and stops none', () => {
    // A talk due to start: started on the schedule known.
    expect(shouldRun(day, schedule, 716 * MIN, false, false)).toBe(true);
    // Past the known end and tail: still running (the calendar may have lengthened it).
    expect(shouldRun(day, schedule, 750 * MIN, false, true)).toBe(true);
    // Back: the calendar decides again.
    expect(shouldRun(day, schedule, 750 * MIN, true, true)).toBe(false);
  });

  it('gives the archive the talk started last, its overrun until the next starts', () => {
    const at = (minute: number) => talkAt(day, schedule, minute * MIN)?.id ?? null;
    expect([at(598), at(600), at(629), at(630), at(662), at(665)]).toEqual([null, 1, 1, 2, 2, null]);
    expect([at(719), at(720), at(744), at(745)]).toEqual([null, 3, 3, null]);
    // With no tail the talk ends exactly at its end.
    expect(talkAt(day, { ...schedule, tailSeconds: 0 }, 740 * MIN)).toBeNull();
  });

  it('writes the live link while a talk runs, then its transcripts, never before it starts', () => {
    const t = talk(1, 600, 630);
    const links = [
      { track: 'original', srt: 'https://o/t/a.srt', vtt: 'https://o/t/a.vtt', txt: 'https://o/t/a.txt' },
    ];
    expect(captionsFor(t, 599 * MIN, 'hall', 'https://ui/now.html?room=hall', links)).toBeNull();
    expect(captionsFor(t, 601 * MIN, 'hall', 'https://ui/now.html?room=hall', undefined)).toEqual({
      room: 'hall',
      live: 'https://ui/now.html?room=hall',
      transcripts: [],
    });
    expect(captionsFor(t, 630 * MIN, 'hall', 'https://ui/now.html?room=hall', links)).toEqual({
      room: 'hall',
      live: null,
      transcripts: links,
    });
    // Transcripts not known (the archive did not answer): what the event had stays.
    const had = { ...t, captions: { room: 'hall', live: null, transcripts: links } };
    expect(captionsFor(had, 640 * MIN, 'hall', 'x', undefined)?.transcripts).toEqual(links);
  });

  it('keeps a past talk due until its final field is written, so an outage delays links only', () => {
    const t = talk(1, 600, 630);
    const settleAt = 636 * MIN;
    // Not before it starts; while it runs and its tail lasts, whatever is known.
    expect(fieldDue(t, 599 * MIN, settleAt, false, false)).toBe(false);
    expect(fieldDue(t, 610 * MIN, settleAt, false, false)).toBe(true);
    expect(fieldDue(t, 635 * MIN, settleAt, true, false)).toBe(true);
    // Past it (the calendar was down across its end): due while its session is known here...
    expect(fieldDue(t, 700 * MIN, settleAt, false, true)).toBe(true);
    // ...or its event still says it is live (a replica that took over after it ran).
    const stale = {
      ...t,
      captions: { room: 'hall', live: 'https://ui/now.html?room=hall', transcripts: [] },
    };
    expect(fieldDue(stale, 700 * MIN, settleAt, false, false)).toBe(true);
    // Settled, or nothing to say about it: the day's past talks cost nothing.
    expect(fieldDue(t, 700 * MIN, settleAt, true, true)).toBe(false);
    expect(fieldDue(t, 700 * MIN, settleAt, false, false)).toBe(false);
  });
});

describe('the calendar as the scheduler reads it', () => {
  it('takes TEC UTC dates, skips cancelled events and reads the field in one key order', () => {
    const event = {
      id: 7,
      title: 'Keynote',
      utc_start_date: '2026-12-08 09:00:00',
      utc_end_date: '2026-12-08 09:45:00',
      json_ld: { eventStatus: 'https://schema.org/EventScheduled' },
      captions: {
        transcripts: [{ txt: 'c', vtt: 'b', srt: 'a', track: 'original' }],
        live: null,
        room: 'hall',
      },
    };
    const read = talkOf(event)!;
    expect([read.start, read.end]).toEqual([
      Date.parse('2026-12-08T09:00:00Z'),
      Date.parse('2026-12-08T09:45:00Z'),
    ]);
    expect(JSON.stringify(read.captions)).toBe(
      '{"room":"hall","live":null,"transcripts":[{"track":"original","srt":"a","vtt":"b","txt":"c"}]}',
    );
    // Lists carry no JSON-LD: a single read tells a cancelled event.
    expect(isCancelled(event)).toBe(false);
    expect(isCancelled({ ...event, json_ld: { eventStatus: 'https://schema.org/EventCancelled' } })).toBe(
      true,
    );
    expect(talkOf({ ...event, utc_end_date: 'soon' })).toBeUndefined();
    expect(readCaptions('not an object')).toBeNull();
  });
});

describe('the rehearsal clock', () => {
  it('reads the schedule time given at the real time given, at its rate', () => {
    let real = Date.parse('2026-12-07T14:00:00Z');
    const clock = parseScheduleClock('2026-12-08T09:00:00Z@2026-12-07T14:00:00Zx60', () => real);
    expect(new Date(clock()).toISOString()).toBe('2026-12-08T09:00:00.000Z');
    real += 10_000;
    expect(new Date(clock()).toISOString()).toBe('2026-12-08T09:10:00.000Z');
    expect(() => parseScheduleClock('tomorrow x60')).toThrow(/SCHEDULE@REALx<rate>/);
    expect(() => parseScheduleClock('2026-12-08T09:00:00Z@2026-12-07T14:00:00Zx0')).toThrow(/rate/);
  });
});
