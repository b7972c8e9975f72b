import { describe, expect, it } from '@jest/globals';
import supertest from 'supertest';
import { parseTokens } from '../src/adapters/tokens.js';
import { buildApp } from '../src/app.js';
import { createEvent, ROOT, tokenFile, tokens, useTestApi } from './helpers.js';

// Lists remember totals, page ids and rendered events under the data's generation (issue 17,
// "Speed without the cache"): the statement must skip work when nothing changed, and nothing
// remembered may be served once anything a list reads changed, whoever changed it.
let now = new Date('2030-06-15T12:00:00Z');
const api = useTestApi({ now: () => now });
const base = { start_date: '2030-07-10 18:00', end_date: '2030-07-10 20:00' };
const create = (body: Record<string, unknown>) => createEvent(api, body, 'admin', base);
const listed = async (query: string) => (await api.request.get(`${ROOT}/events?${query}`)).body;
const generation = async () =>
  ((await api.knex.raw('SELECT value::text AS value FROM cal_generation')).rows[0] as { value: string })
    .value;

/** The rows of the event list statements that ran during `work`. */
async function listStatementRows(work: () => Promise<unknown>) {
  const rows: { total: string; ids: number[]; events: string }[] = [];
  const seen = (response: unknown[], query: { sql?: string }) => {
    if (query.sql?.includes('AS ids')) rows.push(response[0] as (typeof rows)[number]);
  };
  api.knex.on('query-response', seen);
  try {
    await work();
  } finally {
    api.knex.off('query-response', seen);
  }
  return rows;
}

describe('list memo', () => {
  it('skips the events JSON of a page it has rendered while the data is unchanged', async () => {
    for (const title of ['Memo A', 'Memo B', 'Memo C']) await create({ title, tags: ['memo'] });
    const [first] = await listStatementRows(() => listed('tags=memo&per_page=2'));
    const [second] = await listStatementRows(() => listed('tags=memo&per_page=2&page=1'));
    expect(first!.events).not.toBe('');
    expect(second!.events).toBe('');
    expect(second!.ids).toEqual(first!.ids);
    const again = await listed('tags=memo&per_page=2');
    expect([again.total, again.events.map((e: { title: string }) => e.title)]).toEqual([
      3,
      ['Memo A', 'Memo B'],
    ]);
  });

  it('reads a page it read before under the same generation from memory, until its window moves', async () => {
    const on = (date: string) => ({ start_date: `${date} 18:00`, end_date: `${date} 20:00` });
    await create({ title: 'Window 1', tags: ['window'], ...on('2030-06-15') });
    await create({ title: 'Window 2', tags: ['window'], ...on('2030-06-17') });
    const titles = async () => (await listed('tags=window')).events.map((e: { title: string }) => e.title);
    const rows = await listStatementRows(async () => {
      for (let i = 0; i < 3; i++) expect(await titles()).toEqual(['Window 1', 'Window 2']);
    });
    expect(rows.map((row) => [row.total, row.ids.length, row.events === ''])).toEqual([
      [2, 2, false],
      [2, 2, true],
      [2, 2, true],
    ]);
    // The same data two days later: the default window (from yesterday) no longer holds Window 1.
    const today = now;
    now = new Date('2030-06-17T12:00:00Z');
    try {
      expect(await titles()).toEqual(['Window 2']);
      expect((await listed('tags=window')).total).toBe(1);
    } finally {
      now = today;
    }
    expect(await titles()).toEqual(['Window 1', 'Window 2']);
  });

  it('reads no page while it knows this one under the same generation', async () => {
    const on = (date: string) => ({ start_date: `${date} 18:00`, end_date: `${date} 20:00` });
    const early = await create({ title: 'Known 1', tags: ['known'], ...on('2030-07-01') });
    await create({ title: 'Known 2', tags: ['known'], ...on('2030-07-02') });
    const titles = async () => (await listed('tags=known')).events.map((e: { title: string }) => e.title);
    for (let i = 0; i < 2; i++) expect(await titles()).toEqual(['Known 1', 'Known 2']);
    // Known 1 moved after Known 2 behind the generation's back (its trigger off): a page that
    // PostgreSQL read would put it second.
    await api.knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL session_replication_role = replica');
      const later = {
        start_utc: new Date('2030-07-03T18:00:00Z'),
        end_utc: new Date('2030-07-03T20:00:00Z'),
      };
      await trx('cal_events').where({ id: early.id }).update(later);
    });
    expect(await titles()).toEqual(['Known 1', 'Known 2']);
    await api.knex.raw('DELETE FROM cal_terms WHERE false'); // a new generation
    expect(await titles()).toEqual(['Known 2', 'Known 1']);
  });

  it('shows what SQL from elsewhere changed at once: a title, a venue name, a deleted event', async () => {
    const one = await create({ title: 'Outside 1', tags: ['outside'], venue: { venue: 'Outside Hall' } });
    const two = await create({ title: 'Outside 2', tags: ['outside'] });
    await create({ title: 'Outside 3', tags: ['outside'] });
    for (let i = 0; i < 2; i++) expect((await listed('tags=outside&per_page=2')).total).toBe(3);

    await api.knex('cal_events').where({ id: one.id }).update({ title: 'Outside 1 renamed' });
    expect((await listed('tags=outside&per_page=2')).events[0].title).toBe('Outside 1 renamed');
    await listed('tags=outside&per_page=2');
    await api.knex('cal_venues').where({ id: one.venue.id }).update({ title: 'Outside Hall renamed' });
    expect((await listed('tags=outside&per_page=2')).events[0].venue.venue).toBe('Outside Hall renamed');

    await api.knex('cal_events').where({ id: two.id }).delete();
    const deleted = await listed('tags=outside&per_page=2');
    expect([deleted.total, deleted.events.map((e: { title: string }) => e.title)]).toEqual([
      2,
      ['Outside 1 renamed', 'Outside 3'],
    ]);
  });

  it('shows at once what another replica of the service wrote', async () => {
    const event = await create({ title: 'Replicated', tags: ['replica'] });
    const replica = buildApp({
      knex: api.knex,
      restRoot: '/wp-json',
      timezone: 'UTC',
      tokens: parseTokens(tokenFile),
      now: () => now,
    });
    for (let i = 0; i < 2; i++) expect((await listed('tags=replica')).events[0].title).toBe('Replicated');
    const write = await supertest(replica)
      .post(`${ROOT}/events/${event.id}`)
      .set('Authorization', `Bearer ${tokens.admin}`)
      .send({ title: 'Replicated, then renamed' });
    expect(write.status).toBe(200);
    expect((await listed('tags=replica')).events[0].title).toBe('Replicated, then renamed');
  });

  it('never hands a rendering made for an editor to an anonymous caller', async () => {
    const venue = await api.by('admin').post('venues', { venue: 'Unannounced Hall', status: 'draft' });
    expect(venue.status).toBe(201);
    await create({ title: 'Secret venue', tags: ['scoped'], venue: venue.body.id });
    // The same statement as the anonymous list below (published events only).
    const asAdmin = await api.by('admin').get('events?tags=scoped&status=publish');
    expect(asAdmin.body.events[0].venue.venue).toBe('Unannounced Hall');
    expect((await listed('tags=scoped')).events[0].venue).toEqual([]);
  });

  it('starts a new generation with every write statement on each table a list reads, at commit', async () => {
    const tables = ['cal_events', 'cal_venues', 'cal_organizers', 'cal_terms', 'cal_event_terms'];
    for (const table of [...tables, 'cal_event_organizers']) {
      const before = await generation();
      await api.knex.raw(`DELETE FROM ${table} WHERE false`);
      expect([table, await generation()]).not.toEqual([table, before]);
    }
    const before = await generation();
    const trx = await api.knex.transaction();
    await trx.raw('UPDATE cal_events SET title = title WHERE false');
    expect(await generation()).toBe(before); // not yet committed
    await trx.rollback();
    expect(await generation()).toBe(before);
  });
});
