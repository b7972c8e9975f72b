import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { openDatabase } from '../src/adapters/db.js';
import { migrate } from '../src/adapters/migrations.js';
import { parseTokens } from '../src/adapters/tokens.js';
import { buildApp } from '../src/app.js';
import { ROOT, tokenFile, tokens } from './helpers.js';
import { churchFeed, frabJson, frabXml, smallConference } from './import-fixtures.js';

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
});
