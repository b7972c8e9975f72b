/**
 * Schedules generated for the import tests and the benchmark: an iCalendar feed in two
 * revisions, and frab/pretalx schedules (JSON and XML) of any size.
 */

/** iCalendar lines joined with CRLF, as RFC 5545 wants. */
export const ics = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

const BRUSSELS_VTIMEZONE = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Brussels',
  'BEGIN:STANDARD',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'END:STANDARD',
  'BEGIN:DAYLIGHT',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'END:DAYLIGHT',
  'END:VTIMEZONE',
];

function vevent(fields: Record<string, string | string[]>): string[] {
  const lines = ['BEGIN:VEVENT'];
  for (const [name, value] of Object.entries(fields)) {
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}${one}`);
  }
  lines.push('END:VEVENT');
  return lines;
}

/**
 * A church and conference feed. Revision 1: an opening talk (10:00 Brussels), a weekly service
 * (4 Sundays from 2027-03-14 09:00 across the DST change of 03-28, the 2nd excluded), a talk to
 * be cancelled later, one to vanish later, one already cancelled. Revision 2: the opening moved
 * to 11:00 with SEQUENCE 1 (and its stale SEQUENCE 0 copy after it), the talk cancelled, the
 * vanished one gone.
 */
export function churchFeed(revision: 1 | 2): string {
  const events = [
    ...(revision === 2
      ? vevent({
          UID: ':opening@fixture',
          SEQUENCE: ':1',
          'DTSTART;TZID=Europe/Brussels': ':20270111T110000',
          'DTEND;TZID=Europe/Brussels': ':20270111T120000',
          SUMMARY: ':Opening (moved)',
          DESCRIPTION: ':Welcome\\, everyone.\\nSecond line.',
          LOCATION: ':Room A',
          URL: ':https://example.org/opening',
        })
      : []),
    ...vevent({
      UID: ':opening@fixture',
      SEQUENCE: ':0',
      'DTSTART;TZID=Europe/Brussels': ':20270111T100000',
      'DTEND;TZID=Europe/Brussels': ':20270111T110000',
      SUMMARY: ':Opening',
      DESCRIPTION: ':Welcome\\, everyone.\\nSecond line.',
      LOCATION: ':Room A',
      URL: ':https://example.org/opening',
    }),
    ...vevent({
      UID: ':service@fixture',
      'DTSTART;TZID=Europe/Brussels': ':20270314T090000',
      'DTEND;TZID=Europe/Brussels': ':20270314T103000',
      RRULE: ':FREQ=WEEKLY;COUNT=4',
      'EXDATE;TZID=Europe/Brussels': ':20270321T090000',
      SUMMARY: ':Sunday service',
      LOCATION: ':Sanctuary',
    }),
    ...vevent({
      UID: ':late@fixture',
      SEQUENCE: revision === 2 ? ':1' : ':0',
      'DTSTART;TZID=Europe/Brussels': ':20270112T140000',
      'DTEND;TZID=Europe/Brussels': ':20270112T150000',
      SUMMARY: ':Late talk',
      LOCATION: ':room b',
      ...(revision === 2 ? { STATUS: ':CANCELLED' } : {}),
    }),
    ...(revision === 1
      ? vevent({
          UID: ':vanishing@fixture',
          DTSTART: ':20270113T120000Z',
          DTEND: ':20270113T130000Z',
          SUMMARY: ':Vanishing talk',
          LOCATION: ':Room B',
        })
      : []),
    ...vevent({
      UID: ':dead@fixture',
      DTSTART: ';VALUE=DATE:20270115',
      SUMMARY: ':Called off',
      STATUS: ':CANCELLED',
    }),
  ];
  return ics([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//fixture//import test//EN',
    'X-WR-CALNAME:Fixture church',
    ...BRUSSELS_VTIMEZONE,
    ...events,
    'END:VCALENDAR',
  ]);
}

export interface FrabTalk {
  guid: string;
  id: number;
  date: string;
  start: string;
  duration: string;
  room: string;
  title: string;
  subtitle: string;
  abstract: string;
  url: string;
  persons: { public_name: string }[];
}

export interface FrabShape {
  acronym: string;
  rooms: string[];
  days: string[];
  /** Talks per room and day, back to back from 09:00 (Brussels, winter: +01:00). */
  talksPerRoomDay: number;
  /** Stop after this many talks. */
  limit?: number;
  /** Changes a talk (a re-export with edits). */
  edit?: (talk: FrabTalk) => FrabTalk;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The days of a frab schedule: `days[d].rooms[room] = talks`. */
export function frabDays(shape: FrabShape): { date: string; rooms: Record<string, FrabTalk[]> }[] {
  let n = 0;
  return shape.days.map((date) => {
    const rooms: Record<string, FrabTalk[]> = {};
    for (const room of shape.rooms) {
      rooms[room] = [];
      for (let i = 0; i < shape.talksPerRoomDay; i++) {
        if (shape.limit !== undefined && n >= shape.limit) break;
        n++;
        const minutes = 9 * 60 + i * 30;
        const start = `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
        const talk: FrabTalk = {
          guid: `${shape.acronym}-talk-${n}`,
          id: n,
          date: `${date}T${start}:00+01:00`,
          start,
          duration: '00:25',
          room,
          title: `Talk ${n}: ${room} & friends`,
          subtitle: `Subtitle ${n}`,
          abstract: `Abstract of talk ${n}.`,
          url: `https://example.org/${shape.acronym}/talk/${n}`,
          persons: [{ public_name: `Speaker ${n}` }],
        };
        rooms[room].push(shape.edit ? shape.edit(talk) : talk);
      }
    }
    return { date, rooms };
  });
}

export function frabJson(shape: FrabShape): string {
  const days = frabDays(shape);
  return JSON.stringify({
    schedule: {
      version: '1.0',
      conference: {
        acronym: shape.acronym,
        title: `${shape.acronym} conference`,
        start: shape.days[0],
        end: shape.days.at(-1),
        daysCount: shape.days.length,
        timeslot_duration: '00:05',
        time_zone_name: 'Europe/Brussels',
        rooms: shape.rooms.map((name) => ({ name, guid: `${shape.acronym}-room-${name}` })),
        days: days.map((day, index) => ({
          index: index + 1,
          date: day.date,
          day_start: `${day.date}T09:00:00+01:00`,
          day_end: `${day.date}T19:00:00+01:00`,
          rooms: day.rooms,
        })),
      },
    },
  });
}

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function frabXml(shape: FrabShape): string {
  const days = frabDays(shape);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<schedule>',
    '  <version>1.0</version>',
    '  <conference>',
    `    <acronym>${shape.acronym}</acronym>`,
    `    <title>${shape.acronym} conference</title>`,
    '    <time_zone_name>Europe/Brussels</time_zone_name>',
    '  </conference>',
  ];
  days.forEach((day, index) => {
    lines.push(`  <day index="${index + 1}" date="${day.date}">`);
    for (const [room, talks] of Object.entries(day.rooms)) {
      lines.push(`    <room name="${xmlText(room)}">`);
      for (const t of talks) {
        lines.push(
          `      <event guid="${t.guid}" id="${t.id}">`,
          `        <date>${t.date}</date>`,
          `        <start>${t.start}</start>`,
          `        <duration>${t.duration}</duration>`,
          `        <room>${xmlText(t.room)}</room>`,
          `        <title>${xmlText(t.title)}</title>`,
          `        <subtitle>${xmlText(t.subtitle)}</subtitle>`,
          `        <abstract>${xmlText(t.abstract)}</abstract>`,
          `        <url>${t.url}</url>`,
          `        <persons>${t.persons.map((p, i) => `<person id="${i + 1}">${xmlText(p.public_name)}</person>`).join('')}</persons>`,
          '      </event>',
        );
      }
      lines.push('    </room>');
    }
    lines.push('  </day>');
  });
  lines.push('</schedule>');
  return `${lines.join('\n')}\n`;
}

/** Two rooms, two days, two talks per room and day: 8 talks. */
export const smallConference = (acronym: string, edit?: FrabShape['edit']): FrabShape => ({
  acronym,
  rooms: ['Janson', 'K.1.105'],
  days: ['2027-02-06', '2027-02-07'],
  talksPerRoomDay: 2,
  edit,
});

/** FOSDEM's size: 35 rooms, 800 talks over two days. */
export const fosdemSized = (acronym = 'fosdem'): FrabShape => ({
  acronym,
  rooms: Array.from(
    { length: 35 },
    (_, i) => `Room ${String.fromCharCode(65 + (i % 26))}${Math.floor(i / 26) + 1}`,
  ),
  days: ['2027-02-06', '2027-02-07'],
  talksPerRoomDay: 12,
  limit: 800,
});
