/**
 * What the board and the public page say of a room bound to a venue: its schedule in words, its
 * current and next talk, today's finished ones; and how the calendar's events become talks
 * (titles as text, only http(s) links, cancelled ones left out). The pages themselves run against
 * the real calendar in chromium: e2e/browser/calendar-day.test.ts.
 */
import { describe, expect, test } from '@jest/globals';
import type { CaptionRoomSchedule } from '@live-captions/protocol';
import { calendarTalks, plainText, safeLink, type Talk, talkOf } from '../src/browser/lib/calendar-client.js';
import {
  dayOf,
  daySpanLine,
  roomDay,
  scheduleLine,
  spanLine,
  type TimeFormats,
  talkLine,
  trackName,
} from '../src/browser/lib/room-talks.js';

const at = (hhmm: string, day = '2026-12-08') => Date.parse(`${day}T${hhmm}:00`);
const formats: TimeFormats = {
  time: (ms) => new Date(ms).toTimeString().slice(0, 5),
  day: (ms) => new Date(ms).toDateString().slice(0, 10),
};
const talk = (id: number, title: string, start: string, end: string, day?: string): Talk => ({
  id,
  venue: 1,
  title,
  start: at(start, day),
  end: at(end, day),
  link: null,
  transcripts: [],
});

describe('the schedule in words', () => {
  const bound: CaptionRoomSchedule = { venue: 3, leadSeconds: 300, tailSeconds: 90, hold: null };
  test('by hand, following a venue with its lead and tail, or held', () => {
    expect(scheduleLine(null, undefined)).toBe('By hand');
    expect(scheduleLine(bound, 'Janson')).toBe('Follows venue Janson (lead 5 min, tail 90 s)');
    expect(scheduleLine(bound, undefined)).toBe('Follows venue 3 (lead 5 min, tail 90 s)');
    expect(scheduleLine({ ...bound, hold: 'on' }, 'Janson')).toBe('Held on by hand · venue Janson');
    expect(scheduleLine({ ...bound, hold: 'off' }, 'Janson')).toBe('Held off by hand · venue Janson');
  });
});

describe("a room's day", () => {
  const day = [
    talk(1, 'Opening', '09:00', '09:30'),
    talk(2, 'Keynote', '09:30', '10:30'),
    talk(3, 'Lightning talks', '11:00', '12:00'),
  ];

  test('between two talks: the next one, and what ended', () => {
    const state = roomDay(day, at('10:45'));
    expect(state.current).toBeUndefined();
    expect(state.next?.title).toBe('Lightning talks');
    expect(state.finished.map((t) => t.title)).toEqual(['Opening', 'Keynote']);
    expect(talkLine(state, at('10:45'), formats)).toBe('Next at 11:00: Lightning talks');
  });

  test('during a talk: it is current until its end; back to back, the next one takes over', () => {
    expect(talkLine(roomDay(day, at('09:10')), at('09:10'), formats)).toBe('Now, until 09:30: Opening');
    const handover = roomDay(day, at('09:30'));
    expect(handover.current?.title).toBe('Keynote');
    expect(handover.finished.map((t) => t.title)).toEqual(['Opening']);
    // Overlapping talks: the one that started last is the one on stage.
    const overlap = roomDay([...day, talk(4, 'Surprise guest', '09:45', '10:00')], at('09:50'));
    expect(overlap.current?.title).toBe('Surprise guest');
  });

  test('after the last talk: the first one of a later day, with its date, or none', () => {
    const later = talk(9, 'Day two opening', '09:00', '09:30', '2026-12-09');
    const evening = at('18:00');
    expect(talkLine(roomDay(day, evening, later), evening, formats)).toBe(
      `Next on ${formats.day(later.start)} at 09:00: Day two opening`,
    );
    expect(talkLine(roomDay(day, evening), evening, formats)).toBe('No more talks today');
    expect(spanLine(day[0]!, formats)).toBe('09:00–09:30');
    expect(daySpanLine(day[0]!, evening, formats)).toBe('09:00–09:30');
    expect(daySpanLine(later, evening, formats)).toBe(`${formats.day(later.start)}, 09:00–09:30`);
  });

  test("the day is the reader's, midnight to midnight", () => {
    const { from, to } = dayOf(at('13:37'));
    expect([from, to]).toEqual([at('00:00'), at('00:00', '2026-12-09')]);
  });

  test('a track named for people', () => {
    expect(trackName('original', () => 'never')).toBe('Original language');
    expect(trackName('de', (code) => (code === 'de' ? 'German' : code))).toBe('German');
  });
});

describe("the calendar's events as talks", () => {
  const event = {
    id: 12,
    title: 'Rock &amp; Roll <em>live</em> &#8211; part&nbsp;2',
    utc_start_date: '2026-12-08 09:00:00',
    utc_end_date: '2026-12-08 09:30:00',
    url: 'https://calendar.example.org/event/rock/',
    venue: { id: 3, venue: 'Janson' },
    captions: {
      room: 'janson',
      live: null,
      transcripts: [
        {
          track: 'original',
          srt: 'https://ui.example.org/t/1.srt',
          vtt: 'https://ui.example.org/t/1.vtt',
          txt: 'https://ui.example.org/t/1.txt',
        },
        {
          track: 'de',
          srt: 'javascript:alert(1)',
          vtt: 'https://ui.example.org/t/2.vtt',
          txt: 'https://ui.example.org/t/2.txt',
        },
      ],
    },
  };

  test('title as text, UTC times, and only the transcripts whose three links are http(s)', () => {
    expect(talkOf(event)).toEqual({
      id: 12,
      venue: 3,
      title: 'Rock & Roll live – part\u00a02',
      start: Date.parse('2026-12-08T09:00:00Z'),
      end: Date.parse('2026-12-08T09:30:00Z'),
      link: 'https://calendar.example.org/event/rock/',
      transcripts: [event.captions.transcripts[0]],
    });
    expect(talkOf({ ...event, captions: undefined })?.transcripts).toEqual([]);
    expect(talkOf({ ...event, venue: [] })).toBeUndefined();
    expect(
      talkOf({ ...event, json_ld: { eventStatus: 'https://schema.org/EventCancelled' } }),
    ).toBeUndefined();
    expect(plainText('a &lt; b &unknown; &#0;')).toBe('a < b &unknown; &#0;');
    expect(safeLink('data:text/html,x')).toBeNull();
  });

  test('a day read page by page, venues joined in one query; a 404 past the end is the end', async () => {
    const asked: string[] = [];
    const fetcher = (async (input: URL) => {
      asked.push(`${input.pathname}${input.search}`);
      const page = Number(input.searchParams.get('page'));
      if (page === 3) return new Response('{"code":"rest_no_events"}', { status: 404 });
      const body = {
        events: [{ ...event, id: page, utc_start_date: `2026-12-08 1${page}:00:00` }],
        total_pages: 4,
      };
      return new Response(JSON.stringify(body), { status: 200 });
    }) as typeof fetch;
    const talks = await calendarTalks(
      'http://cal.test/wp-json/cal/events/v1/',
      [3, 5],
      0,
      3_600_000,
      fetcher,
    );
    expect(talks.map((t) => t.id)).toEqual([1, 2]);
    expect(asked).toEqual([
      '/wp-json/cal/events/v1/events?ends_after=0&starts_before=3600&strict_dates=true&venue=3%2C5&per_page=50&page=1',
      '/wp-json/cal/events/v1/events?ends_after=0&starts_before=3600&strict_dates=true&venue=3%2C5&per_page=50&page=2',
      '/wp-json/cal/events/v1/events?ends_after=0&starts_before=3600&strict_dates=true&venue=3%2C5&per_page=50&page=3',
    ]);
  });
});
