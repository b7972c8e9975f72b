import { describe, expect, it } from '@jest/globals';
import { useTestApi } from './helpers.js';

const api = useTestApi();

describe('concurrent writes', () => {
  it('creates one new category and distinct slugs when many events name them at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.by('admin').post('events', {
          title: 'Same Title',
          start_date: '2030-06-20 20:00',
          end_date: '2030-06-20 22:00',
          categories: ['Brand New'],
          tags: ['fresh'],
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.slug)).size).toBe(8);
    const categoryIds = new Set(results.map((r) => r.body.categories[0].id));
    expect(categoryIds.size).toBe(1);
    const terms = await api.knex('cal_terms').where({ name: 'Brand New' });
    expect(terms).toHaveLength(1);
    expect(terms[0].count).toBe(8);
  });

  it('answers one 201 and term_exists to the others when categories of one name are created at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => api.by('admin').post('categories', { name: 'Raced Category' })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 400, 400, 400, 400, 400]);
    for (const r of results.filter((one) => one.status === 400)) expect(r.body.code).toBe('term_exists');
    expect(await api.knex('cal_terms').where({ name: 'Raced Category' })).toHaveLength(1);
  });
});
