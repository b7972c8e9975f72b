import { describe, expect, it } from '@jest/globals';
import { ROOT, useTestApi } from './helpers.js';

// Issue 17, security and resources: bounded work per request.
const api = useTestApi({ statementTimeoutMs: 500, cacheTtlMs: 60_000 });

describe('resource limits', () => {
  it('answers 503 + Retry-After when a statement runs past statement_timeout', async () => {
    const created = await api.by('admin').post('events', {
      title: 'Locked',
      start_date: '2030-06-20 20:00',
      end_date: '2030-06-20 22:00',
      categories: ['Busy'],
    });
    const termId = created.body.categories[0].id;
    // Another transaction holds the term row: recounting it has to wait, past the timeout.
    const trx = await api.knex.transaction();
    try {
      await trx('cal_terms').where('id', termId).forUpdate().select('id');
      const started = Date.now();
      const res = await api.by('admin').post('events', {
        title: 'Waits',
        start_date: '2030-06-21 20:00',
        end_date: '2030-06-21 22:00',
        categories: [termId],
      });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(res.body.code).toBe('rest_service_unavailable');
    } finally {
      await trx.rollback();
    }
    // Nothing of the timed-out write was kept.
    expect(await api.knex('cal_events').where('title', 'Waits').count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('caps the search length and the size of list parameters', async () => {
    const long = await api.request.get(`${ROOT}/events`).query({ search: 'a'.repeat(201) });
    expect([long.status, Object.keys(long.body.data.params)]).toEqual([400, ['search']]);
    expect((await api.request.get(`${ROOT}/events`).query({ search: 'a'.repeat(200) })).status).toBe(200);
    const ids = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
    for (const name of ['include', 'categories', 'tags', 'venue', 'organizer']) {
      const res = await api.request.get(`${ROOT}/events?${name}=${ids}`);
      expect([name, res.status, Object.keys(res.body.data.params)]).toEqual([name, 400, [name]]);
    }
    for (const path of ['venues', 'organizers', 'categories', 'tags']) {
      const res = await api.request.get(`${ROOT}/${path}`).query({ search: 'b'.repeat(201) });
      expect([path, res.status]).toEqual([path, 400]);
    }
  });

  it('takes GET parameters from the URL only, so a GET body neither changes nor bypasses the cache', async () => {
    await api
      .by('admin')
      .post('events', { title: 'Cached one', start_date: '2030-06-22 20:00', end_date: '2030-06-22 22:00' });
    let statements = 0;
    const count = () => statements++;
    api.knex.on('query', count);
    try {
      const plain = await api.request.get(`${ROOT}/venues`);
      const withBody = await api.request.get(`${ROOT}/venues`).send({ search: 'nothing matches this' });
      expect(withBody.body).toEqual(plain.body);
    } finally {
      api.knex.off('query', count);
    }
    expect(statements).toBe(2); // the first GET's count and page; the second one is a hit
  });
});
