import { describe, expect, it } from '@jest/globals';
import { day, ROOT, useTestApi } from './helpers.js';

// Issue 36 item 4: what a client of The Events Calendar 6.17.2 sees of its term routes, from its
// source and WordPress's: `_links` on a single term, an unknown id refused as a bad `id`
// argument, a duplicate with WordPress's `additional_data`.
const api = useTestApi();

const cases: ['categories' | 'tags', string][] = [
  ['categories', 'cal_events_cat'],
  ['tags', 'post_tag'],
];

/** The path of a link below the namespace (`/categories/5`), its origin checked to be the request's. */
function pathOf(href: string): string {
  const url = new URL(href);
  expect(url.pathname.startsWith(ROOT)).toBe(true);
  return `${url.pathname}${url.search}`;
}

/** TEC's answer to an `id` (or `parent`) its `is_event_category` / tag check refuses. */
const invalidArgument = (name: string) => ({
  code: 'rest_invalid_param',
  message: `Invalid parameter(s): ${name}`,
  data: { status: 400, params: { [name]: 'Invalid parameter.' }, details: [] },
});

describe.each(cases)('%s', (path, taxonomy) => {
  it('answers a single term with WordPress `_links` that lead to this API', async () => {
    const created = await api.by('admin').post(path, { name: `Linked ${path}` });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const collection = created.body.urls.collection as string;
    const base = collection.slice(0, -`/${path}`.length);
    const links = {
      self: [
        { href: `${collection}/${id}`, targetHints: { allow: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] } },
      ],
      collection: [{ href: collection }],
      about: [{ href: `${base}/doc` }],
      'wp:post_type': [{ href: `${base}/events?${path}=${id}` }],
      curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
    };
    expect(created.body._links).toEqual(links);
    // WordPress's response_to_data adds `_links` after the data.
    expect(Object.keys(created.body).at(-1)).toBe('_links');

    const updated = await api.by('admin').patch(`${path}/${id}`, { description: 'Now described' });
    expect([updated.status, updated.body._links]).toEqual([200, links]);

    // `allow` is what the caller may do there, as the Allow header of that route.
    const read = await api.request.get(`${ROOT}/${path}/${id}`);
    expect(read.status).toBe(200);
    expect(read.body._links).toEqual({
      ...links,
      self: [{ href: `${collection}/${id}`, targetHints: { allow: ['GET'] } }],
    });
    expect(read.headers.allow).toBe('GET');

    // Every link answers: the term, its collection, the description, the term's events.
    const event = await api.by('admin').post('events', {
      title: `In ${path}`,
      start_date: day(3, '10:00:00'),
      end_date: day(3, '11:00:00'),
      [path]: [id],
    });
    expect(event.status).toBe(201);
    const self = await api.request.get(pathOf(read.body._links.self[0].href));
    expect([self.status, self.body.id]).toEqual([200, id]);
    const list = await api.request.get(pathOf(read.body._links.collection[0].href));
    expect([list.status, Array.isArray(list.body[path])]).toEqual([200, true]);
    const about = await api.request.get(pathOf(read.body._links.about[0].href));
    expect([about.status, about.body.components.schemas.Term.properties.taxonomy.type]).toEqual([
      200,
      'string',
    ]);
    const events = await api.request.get(pathOf(read.body._links['wp:post_type'][0].href));
    expect(events.status).toBe(200);
    expect(events.body.events.map((e: { id: number }) => e.id)).toEqual([event.body.id]);
    expect(read.body.taxonomy).toBe(taxonomy);
  });

  it('carries no `_links` in lists nor on delete, as The Events Calendar strips them there', async () => {
    const created = (await api.by('admin').post(path, { name: `Unlinked ${path}` })).body;
    const list = await api.request.get(`${ROOT}/${path}?hide_empty=0&per_page=50`);
    expect(list.body[path].length).toBeGreaterThan(0);
    for (const term of list.body[path]) expect(term).not.toHaveProperty('_links');
    const deleted = await api.by('admin').delete(`${path}/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).not.toHaveProperty('_links');
  });

  it('answers an unknown id, for every method and a second delete, as a bad `id` argument', async () => {
    const created = (await api.by('admin').post(path, { name: `Doomed ${path}` })).body;
    await api.by('admin').delete(`${path}/${created.id}`).expect(200);
    const expected = invalidArgument('id');
    for (const [method, res] of [
      ['GET', await api.request.get(`${ROOT}/${path}/${created.id}`)],
      ['GET 999999', await api.request.get(`${ROOT}/${path}/999999`)],
      ['PUT', await api.by('admin').put(`${path}/${created.id}`, { description: 'x' })],
      ['PATCH', await api.by('admin').patch(`${path}/${created.id}`, { description: 'x' })],
      ['POST', await api.by('admin').post(`${path}/${created.id}`, { description: 'x' })],
      ['second DELETE', await api.by('admin').delete(`${path}/${created.id}`)],
      // Arguments are validated before permissions, as WordPress's REST server does.
      ['DELETE anonymous', await api.request.delete(`${ROOT}/${path}/${created.id}`)],
      ['PUT subscriber', await api.by('subscriber').put(`${path}/${created.id}`, { description: 'x' })],
    ] as const) {
      expect([method, res.status, res.body]).toEqual([method, 400, expected]);
    }
    // A term of the other taxonomy is not a term of this one.
    const other = (await api.by('admin').post(path === 'tags' ? 'categories' : 'tags', { name: 'Elsewhere' }))
      .body;
    const wrong = await api.request.get(`${ROOT}/${path}/${other.id}`);
    expect([wrong.status, wrong.body]).toEqual([400, expected]);
  });

  it('refuses list filters that name no term of the taxonomy, naming the parameter', async () => {
    const known = (await api.by('admin').post(path, { name: `Filter ${path}` })).body;
    const filters = path === 'categories' ? ['include', 'exclude', 'parent'] : ['include', 'exclude'];
    for (const name of filters) {
      const res = await api.request.get(`${ROOT}/${path}?hide_empty=0&${name}=999999`);
      expect([name, res.status, res.body.code]).toEqual([name, 400, 'rest_invalid_param']);
      expect(Object.keys(res.body.data.params)).toEqual([name]);
      expect(Object.keys(res.body.data.details)).toEqual([name]);
      const ok = await api.request.get(`${ROOT}/${path}?hide_empty=0&${name}=${known.id}`);
      expect([name, ok.status]).toEqual([name, 200]);
    }
    if (path === 'categories') {
      const top = await api.request.get(`${ROOT}/categories?hide_empty=0&parent=0&per_page=50`);
      expect(top.status).toBe(200);
      expect(top.body.categories.map((c: { id: number }) => c.id)).toContain(known.id);
    }
  });

  it('answers a duplicate name with term_exists and WordPress additional_data', async () => {
    const first = (await api.by('editor').post(path, { name: `Twice ${path}` })).body;
    const res = await api.by('editor').post(path, { name: `twice ${path.toUpperCase()}` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'term_exists',
      message:
        path === 'categories'
          ? 'A term with the name provided already exists with this parent.'
          : 'A term with the name provided already exists in this taxonomy.',
      data: { status: 400, term_id: first.id },
      additional_data: [first.id, first.id],
    });
  });
});

describe('category parent', () => {
  it('refuses an unknown parent as a bad `parent` argument, before permissions', async () => {
    const expected = invalidArgument('parent');
    const created = await api.by('admin').post('categories', { name: 'Orphan', parent: 999999 });
    expect([created.status, created.body]).toEqual([400, expected]);
    const contributor = await api.by('contributor').post('categories', { name: 'Orphan', parent: 999999 });
    expect([contributor.status, contributor.body]).toEqual([400, expected]);
    const top = (await api.by('admin').post('categories', { name: 'Top' })).body;
    const moved = await api.by('admin').patch(`categories/${top.id}`, { parent: 999999 });
    expect([moved.status, moved.body]).toEqual([400, expected]);
  });

  it('links a child category `up` to its parent, embeddable', async () => {
    const parent = (await api.by('admin').post('categories', { name: 'Parent cat' })).body;
    const child = (await api.by('admin').post('categories', { name: 'Child cat', parent: parent.id })).body;
    expect(child._links.up).toEqual([{ embeddable: true, href: parent.urls.self }]);
    expect(Object.keys(child._links)).toEqual([
      'self',
      'collection',
      'about',
      'up',
      'wp:post_type',
      'curies',
    ]);
    const up = await api.request.get(pathOf(child._links.up[0].href));
    expect([up.status, up.body.id]).toEqual([200, parent.id]);
  });
});
