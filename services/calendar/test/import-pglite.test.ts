import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@live-captions/runtime';
import supertest from 'supertest';
import { openDatabase } from '../src/adapters/db.js';
import { migrate } from '../src/adapters/migrations.js';
import { parseTokens } from '../src/adapters/tokens.js';
import { buildApp, defaultImportOptions } from '../src/app.js';
import { importRefresher } from '../src/services/subscriptions.js';
import { ROOT, tokenFile, tokens } from './helpers.js';
import { churchFeed, frabJson, frabXml, smallConference } from './import-fixtures.js';
import { feedServer, movedCancelledNew, TestClock } from './subscription-fixtures.js';

// The embedded default (PGlite, one connection): the same imports as on PostgreSQL.
const dataDir = mkdtempSync(join(tmpdir(), 'cal-import-pglite-'));

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('schedule import on PGlite', () => {
  it('imports iCalendar and frab JSON/XML twice without duplicates; a bad file changes nothing', async () => {
    const db = await openDatabase({ dataDir, poolSize: 1 });
    try {
      await migrate(db.knex);
      const app = buildApp({
        knex: db.knex,
        restRoot: '/wp-json',
        timezone: 'UTC',
        tokens: parseTokens(tokenFile),
        now: () => new Date('2027-01-01T00:00:00Z'),
      });
      const request = supertest(app);
      const post = (body: object) =>
        request.post(`${ROOT}/import`).set('Authorization', `Bearer ${tokens.editor}`).send(body);
      const feeds = [
        { format: 'ical', content: churchFeed(1), source: 'church', created: 6 },
        { format: 'frab-json', content: frabJson(smallConference('pgj')), created: 8 },
        { format: 'frab-xml', content: frabXml(smallConference('pgx')), created: 8 },
      ];
      for (const { created, ...body } of feeds) {
        const first = await post(body);
        expect([first.status, first.body.summary?.events.create]).toEqual([201, created]);
        const second = await post(body);
        expect([second.status, second.body.summary.events.unchanged]).toEqual([201, created]);
      }
      const count = async () => Number((await db.knex('cal_events').count())[0]!.count);
      expect(await count()).toBe(22);
      const revised = await post({ format: 'ical', content: churchFeed(2), source: 'church' });
      expect(revised.body.summary.events).toMatchObject({ update: 1, cancel: 2 });
      const bad = await post({ format: 'frab-xml', content: '<schedule><day date="2027-02-06">' });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('rest_import_invalid_file');
      expect(await count()).toBe(22);
    } finally {
      await db.close();
    }
  }, 120_000); // PGlite is one WASM process: six imports take well over jest's 30 s on a loaded CI machine.

  it('re-imports a subscribed feed when due (the claim on PGlite)', async () => {
    const feed = await feedServer(churchFeed(1));
    const db = await openDatabase({ dataDir: join(dataDir, 'subscriptions'), poolSize: 1 });
    try {
      await migrate(db.knex);
      const clock = new TestClock('2027-01-01T00:00:00Z');
      const importOptions = { ...defaultImportOptions, allowedHosts: new Set([feed.host]) };
      const context = { knex: db.knex, timezone: 'UTC', tokens: parseTokens(tokenFile), now: clock.now };
      const app = buildApp({ ...context, restRoot: '/wp-json', import: importOptions });
      const refresher = importRefresher(
        { ...context, fetchRule: importOptions, horizonDays: importOptions.horizonDays },
        { checkMs: 60_000, logger: createLogger('calendar', { level: 'silent' }) },
      );
      const url = `${feed.origin}/church.ics`;
      const res = await supertest(app)
        .post(`${ROOT}/import`)
        .set('Authorization', `Bearer ${tokens.editor}`)
        .send({ format: 'ical', url, every: 5 });
      expect([res.status, res.body.subscription?.every]).toEqual([201, 5]);
      feed.content = movedCancelledNew();
      clock.advance(4);
      expect(await refresher.runDue()).toBe(0);
      clock.advance(1);
      expect(await refresher.runDue()).toBe(1);
      expect(await refresher.runDue()).toBe(0);
      expect(feed.hits).toBe(2);
      const row = await db.knex('cal_import_subscriptions').first();
      expect(row).toMatchObject({ last_ok: true, every_minutes: 5 });
      const titles = await db
        .knex('cal_events')
        .where('import_source', url)
        .orderBy('import_key')
        .pluck('title');
      expect(titles).toContain('New talk');
      expect(titles).toContain('Opening (moved)');
    } finally {
      await db.close();
      await feed.close();
    }
  }, 120_000);
});
