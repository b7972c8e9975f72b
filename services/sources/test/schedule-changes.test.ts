/**
 * A schedule changed under the scheduler, sixty times fast: the talks come from an iCalendar feed
 * imported into the real calendar (on PostgreSQL here; the day test runs it on PGlite). A running
 * talk shortened stops its source early; a talk the feed cancels (STATUS:CANCELLED in a second
 * import, updating by UID) and a talk unpublished never start it; the calendar killed before a talk
 * and kept down past its end: the talk starts from the schedule known, keeps running while nobody
 * can say it ended, stops when the calendar answers again, and its event gets its transcript then.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { CaptionRoom } from '@live-captions/protocol';
import { killAll, type RedisServer, startRedisServer } from '@live-captions/test-services';
import {
  addPullSource,
  at,
  CALENDAR_TOKEN,
  type Calendar,
  DayClock,
  expectRuns,
  relayApi,
  startCalendar,
  startOutputs,
  watchRunning,
} from './helpers/day.js';
import { publish, startMediaServer } from './helpers/media.js';
import { type Base, createDatabase, type Running, startBase, startSources, until } from './helpers/stack.js';

jest.setTimeout(600_000);

const DAY = '2026-12-08';
const RATE = 60;
let base: Base;
let redis: RedisServer;
let calendar: Calendar;
let media: { port: number; stop(): Promise<void> };
let publisher: { stop(): Promise<void> } | undefined;
let sources: Running;
let outputs: Running;
let clock: DayClock;

/** `20261208T101500Z`: minutes after the day's 10:00 as an iCalendar UTC time. */
const icalAt = (minutes: number) => `${at(DAY, minutes).replace(/[-:]/g, '').replace(' ', 'T')}Z`;

/** The venue's feed: each talk `[uid, title, from, to, status?, sequence?]` in minutes after 10:00. */
function feed(talks: [string, string, number, number, string?, number?][]): string {
  const events = talks.flatMap(([uid, title, from, to, status, sequence]) => [
    'BEGIN:VEVENT',
    `UID:${uid}`,
    `SEQUENCE:${sequence ?? 0}`,
    'DTSTAMP:20261201T000000Z',
    `DTSTART:${icalAt(from)}`,
    `DTEND:${icalAt(to)}`,
    `SUMMARY:${title}`,
    'LOCATION:Ferrer',
    ...(status ? [`STATUS:${status}`] : []),
    'END:VEVENT',
  ]);
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//live-captions//schedule test//EN',
    ...events,
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

beforeAll(async () => {
  base = await startBase({
    relayEnv: { RELAY_DATA_DIR: `/tmp/schedule-changes-relay-${process.pid}-${Date.now()}` },
  });
  [redis, calendar, media] = await Promise.all([
    startRedisServer(),
    createDatabase().then((url) => startCalendar({ DATABASE_URL: url })),
    startMediaServer(),
  ]);
  outputs = await startOutputs(base);
  clock = new DayClock(DAY, RATE, Date.now() + 60_000);
  sources = await startSources(base, {
    DATABASE_URL: await createDatabase(),
    REDIS_URL: redis.url,
    SOURCES_RTMP_PORT: '0',
    SOURCES_CALENDAR_URL: calendar.url,
    SOURCES_CALENDAR_TOKEN: CALENDAR_TOKEN,
    SOURCES_SCHEDULE_POLL_MS: '1000',
    SOURCES_OUTPUTS_URL: `http://127.0.0.1:${outputs.port}/`,
    SOURCES_SCHEDULE_CLOCK: clock.setting,
  });
}, 300_000);

afterAll(async () => {
  await publisher?.stop();
  await killAll([...(sources ? [sources.proc] : []), ...(outputs ? [outputs.proc] : [])]);
  await calendar?.kill();
  await media?.stop();
  await redis?.stop();
  await base?.stop();
});

test('shortened, cancelled by the feed, unpublished, and a talk through a calendar outage', async () => {
  // Minutes of the day (10:00 = 0) a few minutes after "now" on the day's clock.
  const b = Math.ceil(clock.minute()) + 3;
  const talks: [string, string, number, number, string?, number?][] = [
    ['keynote@ferrer', 'Keynote', b + 5, b + 15],
    ['workshop@ferrer', 'Workshop', b + 20, b + 25],
    ['lightning@ferrer', 'Lightning talks', b + 30, b + 36],
    ['closing@ferrer', 'Closing', b + 70, b + 80],
  ];
  const imported = await calendar.call('POST', 'import', {
    format: 'ical',
    content: feed(talks),
    source: 'ferrer',
  });
  expect(imported.status).toBe(201);
  expect(imported.json.summary.events.create).toBe(4);
  const ids = Object.fromEntries(
    (imported.json.events as { key: string; id: number }[]).map((e) => [e.key, e.id]),
  ) as Record<string, number>;
  const venue = (imported.json.venues as { id: number }[])[0]!.id;

  const room = (await relayApi(base, 'POST', '/rooms', { name: 'Ferrer' })).json.room as CaptionRoom;
  const bound = await relayApi(base, 'PATCH', `/rooms/${room.id}`, {
    schedule: { venue, leadSeconds: 60, tailSeconds: 60 },
  });
  expect(bound.status).toBe(200);
  const stream = `rtmp://127.0.0.1:${media.port}/live/ferrer`;
  publisher = publish(stream, 'flv');
  const id = await addPullSource(sources.port, room.id, 'Ferrer stage', stream);

  // Every change of the source's `running` flag, at its minute of the day (from b).
  const watch = watchRunning(() => sources.port, id, clock, b);
  const untilMinute = (minute: number) => clock.until(b + minute);

  // The keynote, running since 4, cut short at 8 to end at 8: its tail ends at 9.
  await untilMinute(8);
  const cut = await calendar.call('POST', `events/${ids['keynote@ferrer']}`, { end_date: at(DAY, b + 8) });
  expect(cut.status).toBe(200);

  // The feed, imported again at 12, cancels the workshop (lead at 19): updated by its UID.
  await untilMinute(12);
  // The feed says what the organiser said at 8 (an import updates what the feed changed: a feed
  // still giving the old end would lengthen the keynote again).
  talks[0] = ['keynote@ferrer', 'Keynote', b + 5, b + 8, undefined, 1];
  talks[1] = ['workshop@ferrer', 'Workshop', b + 20, b + 25, 'CANCELLED', 1];
  const again = await calendar.call('POST', 'import', {
    format: 'ical',
    content: feed(talks),
    source: 'ferrer',
  });
  expect(again.status).toBe(201);
  expect(again.json.summary.events).toMatchObject({ create: 0, cancel: 1 });
  const workshop = await calendar.call('GET', `events/${ids['workshop@ferrer']}`);
  expect(workshop.json.json_ld.eventStatus).toBe('https://schema.org/EventCancelled');

  // The calendar down (SIGKILL: connections refused) from 27 until it has started again (from 39,
  // seconds of real time): the lightning talks' lead (29) and end with its tail (37) fall inside.
  await untilMinute(27);
  await calendar.kill();
  await untilMinute(39);
  await calendar.start();
  const back = Math.round(clock.minute() - b);

  // The closing talk unpublished (a draft) at 60, before its lead at 69.
  expect(back).toBeLessThan(58);
  await untilMinute(60);
  const draft = await calendar.call('POST', `events/${ids['closing@ferrer']}`, { status: 'draft' });
  expect(draft.status).toBe(200);
  await untilMinute(86);
  await watch.stop();

  // Starts and stops: the keynote from 4 to the cut (9), the lightning talks from 29 until the
  // calendar answered again (`back`; their tail ended at 37 while nobody could say so).
  const expected: [number, boolean][] = [
    [4, true],
    [9, false],
    [29, true],
    [back, false],
  ];
  expectRuns(watch.changes, expected);
  expect(sources.proc.logLines(/^schedule starts the room$/)).toHaveLength(2);
  expect(
    sources.proc.logLines(/^calendar unreachable: keeping the schedule known, stopping nothing$/),
  ).toHaveLength(1);

  // Caught up: the lightning talks, run entirely while the calendar was down, get their
  // transcript links once it answers (within a minute of real time).
  const lightning = ids['lightning@ferrer'];
  await until(
    'the lightning talks transcripts linked',
    async () => (await calendar.call('GET', `events/${lightning}`)).json.captions?.transcripts?.length > 0,
    60_000,
  );
  expect((await calendar.call('GET', `events/${lightning}`)).json.captions).toMatchObject({
    room: room.id,
    live: null,
  });
  // The cancelled and the unpublished talks never got a field.
  expect((await calendar.call('GET', `events/${ids['workshop@ferrer']}`)).json.captions ?? null).toBeNull();
  expect((await calendar.call('GET', `events/${ids['closing@ferrer']}`)).json.captions ?? null).toBeNull();
});
