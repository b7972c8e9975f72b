/**
 * A day of talks played sixty times fast (SOURCES_SCHEDULE_CLOCK: a minute of the day per second):
 * the real calendar, relay (rooms on PGlite), gateway and two sources replicas on a private Redis,
 * a stream pulled from a local nginx-rtmp. The room's source runs from 5 minutes before each talk
 * to 5 minutes after, once per stretch of talks, through a SIGKILL of the replica scheduling the
 * room and a calendar frozen for 5 minutes of the day; a trashed talk never starts it, a moved
 * one starts it at its new time; the operator's hold wins until released.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { CaptionRoom } from '@live-captions/protocol';
import { createPublisher } from '@live-captions/relay-client/node';
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
import {
  api,
  type Base,
  createDatabase,
  type Running,
  startBase,
  startSources,
  until,
} from './helpers/stack.js';

jest.setTimeout(600_000);

const DAY = '2026-12-08';
const RATE = 60;
let base: Base;
let redis: RedisServer;
let calendar: Calendar;
let media: { port: number; stop(): Promise<void> };
let publisher: { stop(): Promise<void> } | undefined;
const replicas: Running[] = [];
let outputs: Running;
let clock: DayClock;

beforeAll(async () => {
  base = await startBase({
    relayEnv: { RELAY_DATA_DIR: `/tmp/schedule-relay-${process.pid}-${Date.now()}` },
  });
  [redis, calendar, media] = await Promise.all([startRedisServer(), startCalendar(), startMediaServer()]);
  outputs = await startOutputs(base);
  // The clock starts a little ahead: the replicas and the talks are made before the day begins.
  clock = new DayClock(DAY, RATE, Date.now() + 60_000);
  const env = {
    DATABASE_URL: await createDatabase(),
    REDIS_URL: redis.url,
    SOURCES_RTMP_PORT: '0',
    SOURCES_LEASE_MS: '3000',
    SOURCES_CALENDAR_URL: calendar.url,
    SOURCES_CALENDAR_TOKEN: CALENDAR_TOKEN,
    SOURCES_SCHEDULE_POLL_MS: '1000',
    SOURCES_OUTPUTS_URL: `http://127.0.0.1:${outputs.port}/`,
    SOURCES_SCHEDULE_CLOCK: clock.setting,
  };
  replicas.push(...(await Promise.all([startSources(base, env), startSources(base, env)])));
}, 300_000);

afterAll(async () => {
  await publisher?.stop();
  await killAll([...replicas.map((r) => r.proc), ...(outputs ? [outputs.proc] : [])]);
  await calendar?.kill();
  await media?.stop();
  await redis?.stop();
  await base?.stop();
});

test('a day of talks: one run per stretch, through a replica SIGKILL and a frozen calendar', async () => {
  const venue = await calendar.call('POST', 'venues', { venue: 'Janson', status: 'publish' });
  expect(venue.status).toBe(201);
  const room = (await relayApi(base, 'POST', '/rooms', { name: 'Janson' })).json.room as CaptionRoom;
  const bound = await relayApi(base, 'PATCH', `/rooms/${room.id}`, { schedule: { venue: venue.json.id } });
  expect(bound.json.room.schedule).toMatchObject({ leadSeconds: 300, tailSeconds: 300, hold: null });

  const stream = `rtmp://127.0.0.1:${media.port}/live/janson`;
  publisher = publish(stream, 'flv');
  const id = await addPullSource(replicas[0]!.port, room.id, 'Janson stage', stream);

  // Minutes of the day (10:00 = 0) a few minutes after "now" on the day's clock.
  const b = Math.ceil(clock.minute()) + 3;
  const talk = async (title: string, from: number, to: number) => {
    const made = await calendar.call('POST', 'events', {
      title,
      start_date: at(DAY, b + from),
      end_date: at(DAY, b + to),
      venue: venue.json.id,
      status: 'publish',
    });
    expect(made.status).toBe(201);
    return made.json.id as number;
  };
  const opening = await talk('Opening', 10, 20);
  const second = await talk('Second talk', 20, 30);
  await talk('After the break', 45, 55);
  const trashed = await talk('Cancelled workshop', 70, 80);
  const moved = await talk('Moved panel', 75, 85);

  // Every change of the source's `running` flag, at its minute of the day (from b).
  let asking = replicas[1]!.port;
  const watch = watchRunning(() => asking, id, clock, b);
  const untilMinute = (minute: number) => clock.until(b + minute);

  // What the editor would publish into the output room, one caption in each of the first talks.
  const editor = createPublisher({
    url: `ws://127.0.0.1:${base.relay.port}/ws`,
    room: room.outputRoom,
    token: room.tokens.outputWrite,
  });
  const captionsOf = async (event: number) => (await calendar.call('GET', `events/${event}`)).json.captions;
  const outputsReading = async () =>
    (await fetch(`http://127.0.0.1:${outputs.port}/health`).then((r) => r.json()))?.leases?.held >= 1;
  await untilMinute(13);
  await until('the outputs reading the room', outputsReading);
  expect(await captionsOf(opening)).toEqual({
    room: room.id,
    live: 'http://localhost:8081/now.html?room=janson',
    transcripts: [],
  });
  editor.publish({ final: 'Welcome to the opening talk.', id: 'opening-1' });
  await untilMinute(20);
  // The talk's transcript links appear on its event within a minute of its end (real time).
  await until(
    'the opening transcripts linked',
    async () => (await captionsOf(opening))?.transcripts?.length > 0,
    60_000,
  );
  const links = (await captionsOf(opening)).transcripts;
  expect(links.map((t: { track: string }) => t.track)).toEqual(['original']);
  expect((await captionsOf(opening)).live).toBeNull();
  editor.publish({ final: 'The second speaker begins.', id: 'second-1' });

  // During the second talk: SIGKILL the replica scheduling the room (it logged the start).
  await untilMinute(25);
  const holder = replicas.findIndex((r) => r.proc.logLines(/^schedule starts the room$/).length > 0);
  expect(holder).toBeGreaterThanOrEqual(0);
  await killAll([replicas[holder]!.proc]);
  const survivor = replicas[1 - holder]!;
  asking = survivor.port;

  // The calendar frozen (SIGSTOP: connections taken, never answered) from 38 to 43: the
  // lead of the talk at 45 falls inside, and the last schedule read must start it.
  await untilMinute(38);
  calendar.freeze(true);
  await untilMinute(43);
  calendar.freeze(false);

  // The organiser trashes one talk and moves another, before either's lead (65 and 70).
  await untilMinute(58);
  expect((await calendar.call('DELETE', `events/${trashed}`)).status).toBe(200);
  const move = await calendar.call('POST', `events/${moved}`, {
    title: 'Moved panel',
    start_date: at(DAY, b + 95),
    end_date: at(DAY, b + 100),
    venue: venue.json.id,
  });
  expect(move.status).toBe(200);

  // Each talk's transcript holds its own captions only (public links, no token).
  const vtt = await (await fetch(links[0].vtt)).text();
  expect(vtt).toContain('Welcome to the opening talk.');
  expect(vtt).not.toContain('second speaker');
  const secondLinks = (await captionsOf(second)).transcripts;
  const secondVtt = await (await fetch(secondLinks[0].vtt)).text();
  expect(secondVtt).toContain('The second speaker begins.');
  expect(secondVtt).not.toContain('opening talk');
  editor.close();

  // The hand: on in the empty afternoon, then given back to the (empty) schedule.
  await untilMinute(112);
  expect((await relayApi(base, 'PATCH', `/rooms/${room.id}`, { hold: 'on' })).status).toBe(200);
  await untilMinute(118);
  expect((await relayApi(base, 'PATCH', `/rooms/${room.id}`, { hold: null })).status).toBe(200);
  await untilMinute(124);
  await watch.stop();

  // Each change within 3 minutes of the day (3 s) of its time: a poll, a tick and a lease.
  const expected: [number, boolean][] = [
    [5, true],
    [35, false],
    [40, true],
    [60, false],
    [90, true],
    [105, false],
    [112, true],
    [118, false],
  ];
  expectRuns(watch.changes, expected);
  // Started once per stretch: one replica started the first (and was killed), the survivor the rest.
  const starts = (r: Running) => r.proc.logLines(/^schedule starts the room$/).length;
  expect(starts(survivor)).toBe(3);
  expect(
    survivor.proc.logLines(/^calendar unreachable: keeping the schedule known, stopping nothing$/).length,
  ).toBe(1);
  // The source really ran in each stretch on the survivor (its ffmpeg run after the takeover).
  const source = (await api(survivor.port, 'GET', `/sources/${id}`)).json.source;
  expect(source.running).toBe(false);
  await until(
    'the survivor ran the source',
    () => survivor.proc.logLines(/^source lease held; running$/).length >= 3,
  );
});
