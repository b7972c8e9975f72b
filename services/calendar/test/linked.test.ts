import { describe, expect, it } from '@jest/globals';
import { expectLiteralSearch, ROOT, type TestApi, useTestApi } from './helpers.js';

const api = useTestApi({ now: () => new Date('2030-06-15T12:00:00Z') });

const cases: ['venue' | 'organizer', string, Record<string, string>][] = [
  ['venue', 'venues', { venue: 'Grand Hall', city: 'Lyon', address: '1 Rue X' }],
  ['organizer', 'organizers', { organizer: 'Good Times Ltd', email: 'hello@example.org', phone: '123' }],
];

describe.each(cases)('%s resource', (kind, path, fields) => {
  const name = fields[kind]!;

  it('creates with 201 and omits empty fields', async () => {
    const res = await api.by('author').post(path, fields);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...fields, status: 'publish', author: '3', slug: expect.any(String) });
    expect(res.body).not.toHaveProperty('description');
    expect(res.body).not.toHaveProperty('zip');
    // Issue 28: The Events Calendar 6.17.2 turns a new venue's map flags on unless the request
    // turns them off (Tribe__Events__Venue::create; issue 17 had read them as off).
    if (kind === 'venue') expect(res.body).toMatchObject({ show_map: true, show_map_link: true });
    expect(res.body.global_id_lineage).toEqual([res.body.global_id]);
  });

  it('returns the existing record (201) for a case-insensitive duplicate', async () => {
    const first = await api.request.get(`${ROOT}/${path}?search=${encodeURIComponent(name)}`);
    const dup = await api.by('author').post(path, { [kind]: name.toUpperCase() });
    expect(dup.status).toBe(201);
    expect(dup.body.id).toBe(first.body[path][0].id);
  });

  it('requires the name (400 rest_missing_callback_param) and a role (401/403)', async () => {
    const missing = await api.by('admin').post(path, { description: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('rest_missing_callback_param');
    expect(missing.body.data.params).toEqual([kind]);
    expect((await api.request.post(`${ROOT}/${path}`).send({ [kind]: 'Anon' })).status).toBe(401);
    expect((await api.by('subscriber').post(path, { [kind]: 'Sub' })).status).toBe(403);
  });

  it('lists with the envelope, paging and 404 past the end', async () => {
    await api.by('admin').post(path, { [kind]: `Another ${kind}` });
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
    const event = await api.by('admin').post('events', {
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
    const created = (await api.by('admin').post(path, { [kind]: `Temp ${kind}` })).body;
    expect((await api.request.get(`${ROOT}/${path}/${created.id}`)).body.id).toBe(created.id);
    const bySlug = await api.request.get(`${ROOT}/${path}/by-slug/${created.slug}`);
    expect(bySlug.body.id).toBe(created.id);
    const updated = await api.by('admin').put(`${path}/${created.id}`, { phone: '555' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ [kind]: `Temp ${kind}`, phone: '555' });
    const slugUpdate = await api
      .by('admin')
      .patch(`${path}/by-slug/${created.slug}`, { description: 'Now described' });
    expect(slugUpdate.body.description).toBe('<p>Now described</p>');
    const trashed = await api.by('admin').delete(`${path}/by-slug/${created.slug}`);
    expect(trashed.status).toBe(200);
    expect(trashed.body.status).toBe('trash');
    const again = await api.by('admin').delete(`${path}/${created.id}`);
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

  it('deduplicates only against records the caller may read', async () => {
    const hidden = 'Backstage Draft';
    const draft = await api.by('contributor').post(path, { [kind]: hidden });
    expect(draft.body).toMatchObject({ status: 'draft', author: '4' });
    expect((await api.by('author2').get(`${path}/${draft.body.id}`)).status).toBe(403);

    const other = await api.by('author2').post(path, { [kind]: hidden.toLowerCase() });
    expect(other.status).toBe(201);
    expect(other.body.id).not.toBe(draft.body.id);
    expect(other.body).toMatchObject({ author: '6', status: 'publish' });

    const own = await api.by('contributor').post(path, { [kind]: hidden });
    expect(own.body.id).toBe(draft.body.id);
    const editor = await api.by('editor').post(path, { [kind]: hidden });
    expect(editor.body.id).toBe(draft.body.id);
  });

  it('lists drafts by default to editors and to their author only', async () => {
    const name = `Unlisted ${kind} draft`;
    const draft = await api.by('contributor').post(path, { [kind]: name });
    expect(draft.body.status).toBe('draft');
    const names = async (who?: Parameters<TestApi['as']>[0]) => {
      const list = api.request.get(`${ROOT}/${path}?per_page=50&search=Unlisted`);
      const res = await (who ? list.set(api.as(who)) : list);
      return (res.body[path] as Record<string, string>[]).map((row) => row[kind]);
    };
    expect(await names('editor')).toContain(name);
    expect(await names('contributor')).toContain(name);
    expect(await names('author2')).not.toContain(name);
    expect(await names()).not.toContain(name);
  });

  it('checks author as events do: 400 unknown user, 403 another user below editor', async () => {
    const unknown = await api.by('admin').post(path, { [kind]: 'Ghost Owned', author: 999 });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
    expect(unknown.body.data.params).toHaveProperty('author');

    const impersonated = await api.by('contributor').post(path, { [kind]: 'Impersonated', author: 1 });
    expect(impersonated.status).toBe(403);
    expect(impersonated.body.code).toBe('rest_forbidden');

    const self = await api.by('contributor').post(path, { [kind]: 'Self Owned', author: 4 });
    expect(self.status).toBe(201);
    expect(self.body.author).toBe('4');
    const delegated = await api.by('editor').post(path, { [kind]: 'Delegated', author: 3 });
    expect(delegated.status).toBe(201);
    expect(delegated.body.author).toBe('3');
  });

  it('checks and applies author on updates', async () => {
    const created = (await api.by('author').post(path, { [kind]: `Handed over ${kind}` })).body;
    const item = `${path}/${created.id}`;
    expect((await api.by('admin').patch(item, { author: 999 })).status).toBe(400);
    const stolen = await api.by('author').patch(item, { author: 6 });
    expect(stolen.status).toBe(403);
    expect(stolen.body.code).toBe('rest_forbidden');
    const handed = await api.by('admin').patch(item, { author: 6 });
    expect(handed.status).toBe(200);
    expect(handed.body.author).toBe('6');
  });

  it('refuses (400) a body slug other than the path slug on updates by slug', async () => {
    const created = (await api.by('admin').post(path, { [kind]: `Slugged ${kind}` })).body;
    const bySlug = `${path}/by-slug/${created.slug}`;
    const renamed = await api.by('admin').patch(bySlug, { slug: 'other' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.code).toBe('rest_invalid_param');
    expect(renamed.body.data.params).toHaveProperty('slug');
    const same = await api.by('admin').patch(bySlug, { slug: created.slug, phone: '1' });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ slug: created.slug, phone: '1' });
    const byId = await api.by('admin').patch(`${path}/${created.id}`, { slug: `renamed-${kind}` });
    expect(byId.body.slug).toBe(`renamed-${kind}`);
  });

  it('searches `%`, `_` and `\\` literally', async () => {
    await expectLiteralSearch(
      (name) => api.by('admin').post(path, { [kind]: name }),
      async (search) =>
        (await api.request.get(`${ROOT}/${path}`).query({ search, per_page: 50 })).body[path].map(
          (r: Record<string, string>) => r[kind],
        ),
    );
  });
});

describe('linked validation', () => {
  it('answers 400 for a bad organizer email', async () => {
    const res = await api.by('admin').post('organizers', { organizer: 'X', email: 'nope' });
    expect(res.status).toBe(400);
    expect(res.body.data.params).toHaveProperty('email');
  });
});
