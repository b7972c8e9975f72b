import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ROOT, startTestApi, type TestApi } from './helpers.js';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ now: () => new Date('2030-06-15T12:00:00Z') });
});

afterAll(async () => {
  await api.close();
});

const cases: ['venue' | 'organizer', string, Record<string, string>][] = [
  ['venue', 'venues', { venue: 'Grand Hall', city: 'Lyon', address: '1 Rue X' }],
  ['organizer', 'organizers', { organizer: 'Good Times Ltd', email: 'hello@example.org', phone: '123' }],
];

describe.each(cases)('%s resource', (kind, path, fields) => {
  const name = fields[kind]!;

  it('creates with 201 and omits empty fields', async () => {
    const res = await api.request.post(`${ROOT}/${path}`).set(api.as('author')).send(fields);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...fields, status: 'publish', author: '3', slug: expect.any(String) });
    expect(res.body).not.toHaveProperty('description');
    expect(res.body).not.toHaveProperty('zip');
    if (kind === 'venue') expect(res.body).toMatchObject({ show_map: true, show_map_link: true });
    expect(res.body.global_id_lineage).toEqual([res.body.global_id]);
  });

  it('returns the existing record (201) for a case-insensitive duplicate', async () => {
    const first = await api.request.get(`${ROOT}/${path}?search=${encodeURIComponent(name)}`);
    const dup = await api.request
      .post(`${ROOT}/${path}`)
      .set(api.as('author'))
      .send({ [kind]: name.toUpperCase() });
    expect(dup.status).toBe(201);
    expect(dup.body.id).toBe(first.body[path][0].id);
  });

  it('requires the name (400 rest_missing_callback_param) and a role (401/403)', async () => {
    const missing = await api.request.post(`${ROOT}/${path}`).set(api.as('admin')).send({ description: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('rest_missing_callback_param');
    expect(missing.body.data.params).toEqual([kind]);
    expect((await api.request.post(`${ROOT}/${path}`).send({ [kind]: 'Anon' })).status).toBe(401);
    expect(
      (
        await api.request
          .post(`${ROOT}/${path}`)
          .set(api.as('subscriber'))
          .send({ [kind]: 'Sub' })
      ).status,
    ).toBe(403);
  });

  it('lists with the envelope, paging and 404 past the end', async () => {
    await api.request
      .post(`${ROOT}/${path}`)
      .set(api.as('admin'))
      .send({ [kind]: `Another ${kind}` });
    const res = await api.request.get(`${ROOT}/${path}?per_page=1`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.total_pages).toBe(2);
    expect(res.body[path]).toHaveLength(1);
    expect(res.body.next_rest_url).toMatch(/page=2/);
    expect(res.headers['x-tec-total']).toBe('2');
    const past = await api.request.get(`${ROOT}/${path}?page=3`);
    expect(past.status).toBe(404);
    expect(past.body.code).toBe(`${kind}-archive-page-not-found`);
  });

  it('filters by related event and has_events', async () => {
    const list = await api.request.get(`${ROOT}/${path}?search=${encodeURIComponent(name)}`);
    const id = list.body[path][0].id;
    const event = await api.request
      .post(`${ROOT}/events`)
      .set(api.as('admin'))
      .send({
        title: `With ${kind}`,
        start_date: '2030-07-01 10:00',
        end_date: '2030-07-01 11:00',
        [kind]: id,
      });
    const related = await api.request.get(`${ROOT}/${path}?event=${event.body.id}`);
    expect(related.body[path].map((r: { id: number }) => r.id)).toEqual([id]);
    const withEvents = await api.request.get(`${ROOT}/${path}?has_events=1`);
    expect(withEvents.body[path].map((r: { id: number }) => r.id)).toEqual([id]);
    const upcoming = await api.request.get(`${ROOT}/${path}?only_with_upcoming=true`);
    expect(upcoming.body.total).toBe(1);
  });

  it('reads, updates and trashes by id and by slug', async () => {
    const created = (
      await api.request
        .post(`${ROOT}/${path}`)
        .set(api.as('admin'))
        .send({ [kind]: `Temp ${kind}` })
    ).body;
    expect((await api.request.get(`${ROOT}/${path}/${created.id}`)).body.id).toBe(created.id);
    const bySlug = await api.request.get(`${ROOT}/${path}/by-slug/${created.slug}`);
    expect(bySlug.body.id).toBe(created.id);
    const updated = await api.request
      .put(`${ROOT}/${path}/${created.id}`)
      .set(api.as('admin'))
      .send({ phone: '555' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ [kind]: `Temp ${kind}`, phone: '555' });
    const slugUpdate = await api.request
      .patch(`${ROOT}/${path}/by-slug/${created.slug}`)
      .set(api.as('admin'))
      .send({ description: 'Now described' });
    expect(slugUpdate.body.description).toBe('Now described');
    const trashed = await api.request.delete(`${ROOT}/${path}/by-slug/${created.slug}`).set(api.as('admin'));
    expect(trashed.status).toBe(200);
    expect(trashed.body.status).toBe('trash');
    const again = await api.request.delete(`${ROOT}/${path}/${created.id}`).set(api.as('admin'));
    expect(again.status).toBe(410);
    expect(again.body.code).toBe(`${kind}-is-in-trash`);
  });

  it('answers 404 rest-<kind>-not-found and 401 for anonymous deletes', async () => {
    const missing = await api.request.get(`${ROOT}/${path}/999999`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe(`rest-${kind}-not-found`);
    const anonymous = await api.request.delete(`${ROOT}/${path}/999999`);
    expect(anonymous.status).toBe(401);
  });
});

describe('linked validation', () => {
  it('answers 400 for a bad organizer email', async () => {
    const res = await api.request
      .post(`${ROOT}/organizers`)
      .set(api.as('admin'))
      .send({ organizer: 'X', email: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body.data.params).toHaveProperty('email');
  });
});
