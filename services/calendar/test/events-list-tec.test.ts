import { describe, expect, it } from '@jest/globals';
import { type EventFilter, eventListSql } from '../src/adapters/event-query.js';
import { viewerOf } from '../src/domain/auth.js';
import { dateBounds } from '../src/domain/listing.js';
import { ROOT } from './helpers.js';
import { useListFixture } from './list-fixture.js';

// The list statement's plans, and list semantics as The Events Calendar (issue 17).
const { api, now, titles, create } = useListFixture();

describe('list plans', () => {
  /** EXPLAIN of the statement the route builds, on one connection with sequential scans off (the test data is tiny). */
  async function plan(filter: Partial<EventFilter>, limit: number) {
    const { text, values } = eventListSql(
      { bounds: dateBounds({ strict_dates: false }, 'UTC', now), statuses: ['publish'], ...filter },
      viewerOf(undefined),
      limit,
      0,
    );
    const connection = (await api.knex.client.acquireConnection()) as {
      query(text: string, values?: unknown[]): Promise<{ rows: { 'QUERY PLAN': string }[] }>;
    };
    try {
      await connection.query('ANALYZE');
      await connection.query('SET enable_seqscan = off');
      const { rows } = await connection.query(`EXPLAIN ${text}`, values);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await connection.query('RESET enable_seqscan');
      await api.knex.client.releaseConnection(connection);
    }
  }

  it('reads the default list in order from cal_events_listing, without sorting', async () => {
    const text = await plan({}, 50);
    // The count, and the page's ids in order, from the index alone (rows only for the page's events).
    expect(text.match(/Index Only Scan using cal_events_listing/g)).toHaveLength(2);
    expect(text).not.toMatch(/-> {2}Sort/);
  });
});

describe('issue 17: list semantics as The Events Calendar', () => {
  it('answers a list, whatever its filters, with one SQL statement', async () => {
    const venue = await api.request.get(`${ROOT}/venues?search=Blue`);
    let statements = 0;
    const count = () => statements++;
    api.knex.on('query', count);
    try {
      const res = await api.request.get(
        `${ROOT}/events?categories=music&tags=jazz&venue=${venue.body.venues[0].id}&search=saxophones&featured=1&per_page=5`,
      );
      expect(titles(res)).toEqual(['Jazz Night']);
    } finally {
      api.knex.off('query', count);
    }
    expect(statements).toBe(1);
  });

  it('includes the events of child categories when filtering by a parent', async () => {
    const parent = await api.by('admin').post('categories', { name: 'Performing Arts' });
    const child = await api.by('admin').post('categories', { name: 'Theatre', parent: parent.body.id });
    await api.by('admin').post('categories', { name: 'Improv', parent: child.body.id });
    await create({
      title: 'Improv Show',
      start_date: '2030-06-27 20:00',
      end_date: '2030-06-27 22:00',
      categories: ['Improv'],
    });
    for (const ref of ['performing-arts', parent.body.id, 'theatre']) {
      expect([ref, titles(await api.request.get(`${ROOT}/events?categories=${ref}`))]).toEqual([
        ref,
        ['Improv Show'],
      ]);
    }
  });

  it('never matches a password-protected event in an anonymous search, even by prefix', async () => {
    for (const search of ['friends', 'fri', 'secret', 'party']) {
      expect([search, titles(await api.request.get(`${ROOT}/events?search=${search}`))]).toEqual([
        search,
        [],
      ]);
    }
    // Those who may edit it still find it; its hidden fields stay blank without the password.
    const admin = await api.by('admin').get('events?search=fri');
    expect(titles(admin)).toEqual(['Secret Party']);
  });

  it('orders include lists oldest publication first', async () => {
    const a = await create({
      title: 'Published Later',
      start_date: '2030-06-28 10:00',
      end_date: '2030-06-28 11:00',
      date: '2030-05-02 10:00',
    });
    const b = await create({
      title: 'Published Earlier',
      start_date: '2030-06-29 10:00',
      end_date: '2030-06-29 11:00',
      date: '2030-05-01 10:00',
    });
    const res = await api.request.get(`${ROOT}/events?include=${a.id},${b.id}`);
    expect(titles(res)).toEqual(['Published Earlier', 'Published Later']);
  });
});
