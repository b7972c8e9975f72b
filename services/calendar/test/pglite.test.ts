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

// The embedded default: PGlite behind its socket server, reached by the same knex/pg code.
const dataDir = mkdtempSync(join(tmpdir(), 'cal-pglite-'));

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

async function withApp<T>(fn: (request: supertest.Agent) => Promise<T>): Promise<T> {
  const db = await openDatabase({ dataDir, poolSize: 1 });
  try {
    await migrate(db.knex);
    const app = buildApp({
      knex: db.knex,
      restRoot: '/wp-json',
      timezone: 'UTC',
      tokens: parseTokens(tokenFile),
    });
    const server = app.listen(0, '127.0.0.1');
    try {
      return await fn(supertest.agent(server));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  } finally {
    await db.close();
  }
}

describe('PGlite embedded database', () => {
  it('migrates, writes, lists and keeps the data across restarts', async () => {
    const id = await withApp(async (request) => {
      const created = await request
        .post(`${ROOT}/events`)
        .set({ Authorization: `Bearer ${tokens.admin}` })
        .send({
          title: 'Embedded',
          start_date: 'tomorrow 10am',
          end_date: 'tomorrow 11am',
          categories: ['Local'],
          venue: { venue: 'Here' },
        });
      expect(created.status).toBe(201);
      const list = await request.get(`${ROOT}/events?search=embedded`);
      expect(list.status).toBe(200);
      expect(list.body.total).toBe(1);
      expect(list.body.events[0].categories[0].name).toBe('Local');
      return created.body.id as number;
    });
    await withApp(async (request) => {
      const read = await request.get(`${ROOT}/events/${id}`);
      expect(read.status).toBe(200);
      expect(read.body.venue.venue).toBe('Here');
    });
  }, 120_000);
});
