/**
 * Imports again every N minutes (issue 41): a feed subscribed with `every` is re-imported in the
 * background by one replica per period, a failing feed keeps its events and records why.
 * The feed is a local HTTP server whose content the tests change; the clock is the tests', so
 * "ten minutes later" is a clock move, and the replicas look every 50 ms.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@live-captions/runtime';
import { logCapture } from '@live-captions/test-services';
import { startTestApi, type TestApi } from './helpers.js';
import { churchFeed } from './import-fixtures.js';
import { type FeedServer, feedServer, movedCancelledNew, TestClock } from './subscription-fixtures.js';

const clock = new TestClock('2027-01-01T00:00:00Z');
const logs = logCapture();
let feed: FeedServer;
let a: TestApi;
let b: TestApi;
let url = '';

beforeAll(async () => {
  feed = await feedServer(churchFeed(1));
  url = `${feed.origin}/church.ics`;
  const common = {
    now: clock.now,
    import: { allowedHosts: new Set([feed.host]), timeoutMs: 1000 },
    importCheckMs: 50,
    logger: createLogger('calendar', { level: 'debug' }, logs.stream),
  };
  a = await startTestApi(common);
  // A second replica on the same PostgreSQL database, its own timer looking at the same rows.
  b = await startTestApi({ ...common, database: a.database });
});

afterAll(async () => {
  await b?.close();
  await a?.close();
  await feed?.close();
});

/** Waits (polling the API) until the subscription's last run is the one at `at`. */
async function lastRunAt(at: Date, api: TestApi = a) {
  for (let i = 0; i < 200; i++) {
    const list = await api.by('editor').get('import/subscriptions');
    const run = list.body[0]?.last_run;
    if (run?.at === at.toISOString()) return list.body[0];
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no run at ${at.toISOString()}`);
}

/** Lets both replicas' timers look several times more: a second import would show by then. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

const stored = async () =>
  Object.fromEntries(
    (await a.knex('cal_events').where('import_source', url).select()).map((r) => [r.import_key, r]),
  );

describe('import subscriptions', () => {
  it('refuses bad `every` values, naming the field, and subscribes nothing', async () => {
    const base = { format: 'ical', url };
    for (const every of [0, 4, 1441, 7.5, 'often', true]) {
      const res = await a.by('editor').post('import', { ...base, every });
      expect([res.status, res.body.code, Object.keys(res.body.data.params)]).toEqual([
        400,
        'rest_invalid_param',
        ['every'],
      ]);
    }
    const upload = await a.by('editor').post('import', { format: 'ical', content: churchFeed(1), every: 10 });
    expect([upload.status, Object.keys(upload.body.data.params)]).toEqual([400, ['every']]);
    const preview = await a.by('editor').post('import', { ...base, every: 10, dryRun: true });
    expect([preview.status, Object.keys(preview.body.data.params)]).toEqual([400, ['every']]);
    // A feed that cannot be imported now is not remembered either.
    const missing = await a
      .by('editor')
      .post('import', { format: 'ical', url: `${feed.origin}/404`, every: 10 });
    expect(missing.status).toBe(502);
    expect(feed.hits).toBe(1);
    expect((await a.by('editor').get('import/subscriptions')).body).toEqual([]);
    expect(Number((await a.knex('cal_events').count())[0]!.count)).toBe(0);
  });

  it('subscribes: imports now, answers the subscription; the same url again updates it', async () => {
    const res = await a.by('editor').post('import', { format: 'ical', url, every: 10 });
    expect(res.status).toBe(201);
    expect(res.body.summary.events.create).toBe(6);
    expect(res.body.subscription).toEqual({
      id: expect.any(Number),
      url,
      format: 'ical',
      source: url,
      every: 10,
      user_id: 2,
      created: clock.iso(),
      next_run: clock.iso(10),
      last_run: { at: clock.iso(), ok: true, summary: res.body.summary, error: null },
    });
    const again = await a.by('editor').post('import', { format: 'ical', url, every: 15 });
    expect(again.body.subscription).toMatchObject({ id: res.body.subscription.id, every: 15 });
    expect(again.body.summary.events.unchanged).toBe(6);
    const list = await b.by('editor').get('import/subscriptions');
    expect(list.body).toEqual([again.body.subscription]);
    expect(feed.hits).toBe(3);
  });

  it('the background run applies the changed feed once, on one replica', async () => {
    await settle();
    expect(feed.hits).toBe(3); // not due yet
    feed.content = movedCancelledNew();
    clock.advance(15);
    const sub = await lastRunAt(clock.date());
    expect(sub.last_run).toMatchObject({ ok: true, error: null });
    expect(sub.last_run.summary.events).toEqual({ create: 1, update: 1, cancel: 2, unchanged: 3, skip: 1 });
    expect(sub.next_run).toBe(clock.iso(15));
    const rows = await stored();
    expect(rows['opening@fixture']).toMatchObject({ title: 'Opening (moved)' });
    expect(new Date(rows['opening@fixture'].start_utc).toISOString()).toBe('2027-01-11T10:00:00.000Z');
    expect(rows['late@fixture'].event_status).toBe('cancelled');
    expect(rows['vanishing@fixture'].event_status).toBe('cancelled');
    expect(rows['new@fixture']).toMatchObject({ title: 'New talk', event_status: 'scheduled' });
    await settle();
    expect(feed.hits).toBe(4);
  });

  it('two replicas checking at the same moment import a due feed once', async () => {
    clock.advance(15);
    const runs = await Promise.all([a.refresher!.runDue(), b.refresher!.runDue()]);
    await lastRunAt(clock.date());
    await settle();
    expect(feed.hits).toBe(5);
    // Each run is one replica's: the timers may have claimed it before these calls did.
    expect(runs.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(1);
  });

  it('a feed down keeps the events, records the error once in the log; back, it applies', async () => {
    const before = await stored();
    feed.status = 503;
    clock.advance(15);
    const failed = await lastRunAt(clock.date());
    expect(failed.last_run).toMatchObject({ ok: false, summary: null });
    expect(failed.last_run.error).toContain('HTTP 503');
    clock.advance(15);
    await lastRunAt(clock.date());
    expect(await stored()).toEqual(before);
    // A broken file is a failure too, and is no new state: still one line.
    feed.status = 200;
    feed.content = 'BEGIN:VCALENDAR\r\nnot a calendar';
    clock.advance(15);
    const broken = await lastRunAt(clock.date());
    expect(broken.last_run.error).toContain('cannot be imported');
    expect(await stored()).toEqual(before);
    expect(logs.matching(/^feed import failing$/)).toHaveLength(1);
    feed.content = movedCancelledNew('Opening (moved again)');
    clock.advance(15);
    const back = await lastRunAt(clock.date());
    expect(back.last_run).toMatchObject({ ok: true, error: null });
    expect((await stored())['opening@fixture'].title).toBe('Opening (moved again)');
    expect(logs.matching(/^feed import recovered$/)).toHaveLength(1);
  });

  it('lists and deletes for editors only; a deleted subscription is not run again', async () => {
    expect((await a.request.get('/wp-json/cal/events/v1/import/subscriptions')).status).toBe(401);
    expect((await a.by('author').get('import/subscriptions')).status).toBe(403);
    const [sub] = (await a.by('editor').get('import/subscriptions')).body;
    expect((await a.by('author').delete(`import/subscriptions/${sub.id}`)).status).toBe(403);
    const removed = await a.by('editor').delete(`import/subscriptions/${sub.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ deleted: true, previous: { id: sub.id, url } });
    expect((await a.by('editor').delete(`import/subscriptions/${sub.id}`)).status).toBe(404);
    expect((await a.by('editor').get('import/subscriptions')).body).toEqual([]);
    const hits = feed.hits;
    clock.advance(60);
    await settle();
    expect(feed.hits).toBe(hits);
  });
});
