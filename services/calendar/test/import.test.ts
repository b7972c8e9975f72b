import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROOT, startTestApi, type TestApi, tokens, useTestApi } from './helpers.js';
import { churchFeed, frabJson, frabXml, smallConference } from './import-fixtures.js';

// Before the fixtures' dates: the weekly service's occurrences fall inside the import window.
const now = () => new Date('2027-01-01T00:00:00Z');
const api = useTestApi({ now });

const importAs = (who: 'editor' | 'author' | 'subscriber', body: object) => api.by(who).post('import', body);

/** Everything an import may touch, to show that a refused or previewed one changed nothing. */
async function snapshot(t: TestApi = api) {
  const events = await t.knex('cal_events').orderBy('id').select();
  const venues = await t.knex('cal_venues').orderBy('id').select();
  const generation = await t.knex('cal_generation').first('value');
  return { events, venues, generation };
}

const countBy = (list: { action: string }[]) =>
  list.reduce<Record<string, number>>((acc, e) => {
    acc[e.action] = (acc[e.action] ?? 0) + 1;
    return acc;
  }, {});

describe('iCalendar import', () => {
  const source = 'church';

  it('refuses callers below editor', async () => {
    const body = { format: 'ical', content: churchFeed(1), source };
    expect((await api.request.post(`${ROOT}/import`).send(body)).status).toBe(401);
    expect((await importAs('author', body)).status).toBe(403);
  });

  it('previews the first import without changing anything', async () => {
    const before = await snapshot();
    const res = await importAs('editor', { format: 'ical', content: churchFeed(1), source, dryRun: true });
    expect(res.status).toBe(200);
    expect(res.body.dry_run).toBe(true);
    expect(res.body.summary).toEqual({
      events: { create: 6, update: 0, cancel: 0, unchanged: 0, skip: 1 },
      venues: { create: 3, existing: 0 },
    });
    expect(res.body.venues.map((v: { name: string; action: string }) => `${v.name}:${v.action}`)).toEqual([
      'Room A:create',
      'Sanctuary:create',
      'room b:create',
    ]);
    expect(await snapshot()).toEqual(before);
  });

  it('imports: time zones, recurrence minus EXDATE across DST, venues by name, cancelled skipped', async () => {
    const res = await importAs('editor', { format: 'ical', content: churchFeed(1), source });
    expect(res.status).toBe(201);
    expect(res.body.summary.events).toEqual({ create: 6, update: 0, cancel: 0, unchanged: 0, skip: 1 });
    const rows = await api
      .knex('cal_events')
      .where('import_source', source)
      .orderBy('start_utc')
      .select('import_key', 'title', 'start_utc', 'timezone', 'venue_id', 'event_status', 'status');
    expect(rows.map((r) => [r.import_key, new Date(r.start_utc).toISOString(), r.timezone])).toEqual([
      ['opening@fixture', '2027-01-11T09:00:00.000Z', 'Europe/Brussels'],
      ['late@fixture', '2027-01-12T13:00:00.000Z', 'Europe/Brussels'],
      ['vanishing@fixture', '2027-01-13T12:00:00.000Z', 'UTC+0'],
      // 09:00 in Brussels: CET, then CEST from 03-28.
      ['service@fixture#20270314T090000', '2027-03-14T08:00:00.000Z', 'Europe/Brussels'],
      ['service@fixture#20270328T090000', '2027-03-28T07:00:00.000Z', 'Europe/Brussels'],
      ['service@fixture#20270404T090000', '2027-04-04T07:00:00.000Z', 'Europe/Brussels'],
    ]);
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['publish']));
    // "room b" and "Room B" are one venue, created once.
    const venues = await api.knex('cal_venues').orderBy('id').pluck('title');
    expect(venues).toEqual(['Room A', 'Sanctuary', 'room b']);
    const opening = await api.by('editor').get(`events/${res.body.events[0].id}`);
    expect(opening.body).toMatchObject({
      title: 'Opening',
      start_date: '2027-01-11 10:00:00',
      timezone: 'Europe/Brussels',
      venue: { venue: 'Room A' },
      website: 'https://example.org/opening',
    });
    expect(opening.body.json_ld.eventStatus).toBe('https://schema.org/EventScheduled');
  });

  it('a second import of the same feed changes nothing and duplicates nothing', async () => {
    const before = await snapshot();
    const res = await importAs('editor', { format: 'ical', content: churchFeed(1), source });
    expect(res.status).toBe(201);
    expect(res.body.summary).toEqual({
      events: { create: 0, update: 0, cancel: 0, unchanged: 6, skip: 1 },
      venues: { create: 0, existing: 3 },
    });
    const after = await snapshot();
    expect(after.events).toEqual(before.events);
    expect(after.venues).toEqual(before.venues);
  });

  it('revision 2: updates by UID (later SEQUENCE), cancels STATUS:CANCELLED and what vanished', async () => {
    const preview = await importAs('editor', {
      format: 'ical',
      content: churchFeed(2),
      source,
      dry_run: true,
    });
    const res = await importAs('editor', { format: 'ical', content: churchFeed(2), source });
    expect(res.status).toBe(201);
    expect(preview.body.events).toEqual(res.body.events);
    expect(countBy(res.body.events)).toEqual({ update: 1, cancel: 2, unchanged: 3, skip: 1 });
    const opening = res.body.events.find((e: { key: string }) => e.key === 'opening@fixture');
    expect(opening).toMatchObject({ action: 'update', changes: ['title', 'start_date', 'end_date'] });
    const rows = await api.knex('cal_events').where('import_source', source).orderBy('start_utc');
    expect(rows).toHaveLength(6);
    const byKey = Object.fromEntries(rows.map((r) => [r.import_key, r]));
    expect(byKey['opening@fixture']).toMatchObject({ title: 'Opening (moved)', import_sequence: 1 });
    expect(new Date(byKey['opening@fixture'].start_utc).toISOString()).toBe('2027-01-11T10:00:00.000Z');
    expect(byKey['late@fixture'].event_status).toBe('cancelled');
    expect(byKey['vanishing@fixture'].event_status).toBe('cancelled');
    const late = await api.by('editor').get(`events/${byKey['late@fixture'].id}`);
    expect(late.body.json_ld.eventStatus).toBe('https://schema.org/EventCancelled');
    // And once more: nothing left to do (the vanished talk, already cancelled, is not listed).
    const again = await importAs('editor', { format: 'ical', content: churchFeed(2), source });
    expect(countBy(again.body.events)).toEqual({ unchanged: 5, skip: 1 });
  });

  it('a broken file is a 400 naming the line, and changes nothing', async () => {
    const before = await snapshot();
    const broken = churchFeed(1).replace('SUMMARY:Sunday service', 'SUMMARY Sunday service');
    const line = broken.split('\r\n').indexOf('SUMMARY Sunday service') + 1;
    const res = await importAs('editor', { format: 'ical', content: broken, source });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'rest_import_invalid_file', data: { status: 400, line } });
    expect(res.body.message).toContain(`line ${line}:`);
    expect(await snapshot()).toEqual(before);
  });
});

describe('frab import', () => {
  it('imports JSON and XML (rooms become venues), twice without duplicates', async () => {
    for (const [format, content] of [
      ['frab-json', frabJson(smallConference('fixj'))],
      ['frab-xml', frabXml(smallConference('fixx'))],
    ] as const) {
      const first = await importAs('editor', { format, content });
      expect(first.status).toBe(201);
      expect(first.body.source).toBe(`${format}:${format === 'frab-json' ? 'fixj' : 'fixx'}`);
      expect(first.body.summary.events.create).toBe(8);
      const second = await importAs('editor', { format, content });
      expect(second.body.summary.events).toEqual({ create: 0, update: 0, cancel: 0, unchanged: 8, skip: 0 });
      const rows = await api.knex('cal_events').where('import_source', first.body.source).count();
      expect(Number(rows[0]!.count)).toBe(8);
    }
    // Both conferences share the two rooms: two venues.
    expect(await api.knex('cal_venues').whereIn('title', ['Janson', 'K.1.105']).pluck('title')).toEqual([
      'Janson',
      'K.1.105',
    ]);
    const talk = await api.knex('cal_events').where('import_key', 'fixj-talk-2').first();
    expect(talk).toMatchObject({ title: 'Talk 2: Janson &amp; friends', timezone: 'Europe/Brussels' });
    expect(new Date(talk.start_utc).toISOString()).toBe('2027-02-06T08:30:00.000Z');
  });

  it('a re-export with an edit updates that talk only', async () => {
    const edited = smallConference('fixj', (t) =>
      t.id === 3 ? { ...t, start: '10:00', date: t.date.replace(/T\d\d:\d\d/, 'T10:00') } : t,
    );
    const res = await importAs('editor', { format: 'frab-json', content: frabJson(edited) });
    expect(countBy(res.body.events)).toEqual({ update: 1, unchanged: 7 });
  });

  it('broken JSON and XML: 400 naming the member or element, nothing changed', async () => {
    const before = await snapshot();
    const json = JSON.parse(frabJson(smallConference('fixj')));
    json.schedule.conference.days[1].rooms.Janson[0].duration = 'long';
    const res = await importAs('editor', { format: 'frab-json', content: JSON.stringify(json) });
    expect(res.status).toBe(400);
    expect(res.body.data.path).toBe('schedule.conference.days[1].rooms.Janson[0].duration');
    const xml = frabXml(smallConference('fixx')).replace('<start>09:30</start>', '<start>9h30</start>');
    const xmlRes = await importAs('editor', { format: 'frab-xml', content: xml });
    expect(xmlRes.status).toBe(400);
    expect(xmlRes.body.message).toContain('schedule/day[1]/room[1]/event[2]/start: must be HH:MM');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a request without content or url, or with both', async () => {
    expect((await importAs('editor', { format: 'ical' })).status).toBe(400);
    expect(
      (await importAs('editor', { format: 'ical', content: 'x', url: 'https://example.org' })).status,
    ).toBe(400);
    expect((await importAs('editor', { format: 'csv', content: 'x' })).status).toBe(400);
  });
});

describe('URL import', () => {
  let feed: Server;
  let port = 0;
  let listed: TestApi;
  let small: TestApi;
  beforeAll(async () => {
    feed = createServer((req, res) => {
      if (req.url === '/big.ics') {
        res.end(`${churchFeed(1)}${'X-PAD:'.padEnd(3000, 'x')}\r\n`);
        return;
      }
      if (req.url === '/slow.ics') return; // never answers
      res.setHeader('content-type', 'text/calendar');
      res.end(churchFeed(1));
    });
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    port = (feed.address() as AddressInfo).port;
    listed = await startTestApi({
      now,
      import: { allowedHosts: new Set([`127.0.0.1:${port}`]), timeoutMs: 1000 },
    });
    small = await startTestApi({
      now,
      import: { allowedHosts: new Set([`127.0.0.1:${port}`]), maxBytes: 2048 },
    });
  });
  afterAll(async () => {
    await listed?.close();
    await small?.close();
    feed.closeAllConnections();
    await new Promise((resolve) => feed.close(resolve));
  });

  it('refuses a private host that is not listed', async () => {
    const url = `http://127.0.0.1:${port}/feed.ics`;
    const res = await importAs('editor', { format: 'ical', url });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('rest_import_url_not_allowed');
    const https = await importAs('editor', { format: 'ical', url: url.replace('http:', 'https:') });
    expect(https.body.code).toBe('rest_import_url_not_allowed');
    expect(https.body.message).toContain('not public');
  });

  it('imports from a listed host, keyed by the URL', async () => {
    const url = `http://127.0.0.1:${port}/feed.ics`;
    const auth = { Authorization: `Bearer ${tokens.editor}` };
    const res = await listed.request.post(`${ROOT}/import`).set(auth).send({ format: 'ical', url });
    expect(res.status).toBe(201);
    expect(res.body.source).toBe(url);
    expect(res.body.summary.events.create).toBe(6);
    const again = await listed.request.post(`${ROOT}/import`).set(auth).send({ format: 'ical', url });
    expect(again.body.summary.events.unchanged).toBe(6);
    const slow = await listed.request
      .post(`${ROOT}/import`)
      .set(auth)
      .send({ format: 'ical', url: `http://127.0.0.1:${port}/slow.ics` });
    expect(slow.status).toBe(504);
    expect(slow.body.code).toBe('rest_import_fetch_timeout');
  });

  it('refuses a feed over the size limit, from the URL or uploaded', async () => {
    const auth = { Authorization: `Bearer ${tokens.editor}` };
    const res = await small.request
      .post(`${ROOT}/import`)
      .set(auth)
      .send({ format: 'ical', url: `http://127.0.0.1:${port}/big.ics` });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('rest_import_too_large');
    const upload = await small.request
      .post(`${ROOT}/import`)
      .set(auth)
      .send({ format: 'ical', content: `${churchFeed(1)}${'X-PAD:'.padEnd(3000, 'x')}\r\n` });
    expect(upload.status).toBe(413);
    const rows = await small.knex('cal_events').count();
    expect(Number(rows[0]!.count)).toBe(0);
  });
});
