import { describe, expect, it } from '@jest/globals';
import { ROOT, type Role, useTestApi } from './helpers.js';

// Issue 44 point 2: the term routes' rights as TEC 6.17.2 maps them. Term_Single_Base::can_create,
// can_edit and can_delete are one check: edit_tribe_events and the taxonomy's manage_terms, which
// Tribe__Events__Main::register_taxonomy sets to publish_tribe_events for categories (authors and
// up) and WordPress sets to manage_categories for post_tag (editors and up).
const api = useTestApi();

const may: Record<'categories' | 'tags', Role[]> = {
  categories: ['admin', 'editor', 'author', 'author2'],
  tags: ['admin', 'editor'],
};
const everyone: Role[] = ['admin', 'editor', 'author', 'author2', 'contributor', 'subscriber'];

describe.each(['categories', 'tags'] as const)('%s', (path) => {
  it.each(everyone)('%s creates, updates and deletes only where TEC lets it', async (who) => {
    const allowed = may[path].includes(who);
    const mine = await api.by(who).post(path, { name: `${who} ${path}` });
    expect(mine.status).toBe(allowed ? 201 : 403);
    const id = allowed ? mine.body.id : (await api.by('admin').post(path, { name: `For ${who}` })).body.id;
    const expected = allowed ? 200 : 403;
    for (const method of ['put', 'patch', 'post'] as const) {
      const res = await api.by(who)[method](`${path}/${id}`, { description: `By ${who} ${method}` });
      expect([method, res.status]).toEqual([method, expected]);
    }
    const read = await api.by(who).get(`${path}/${id}`);
    expect(read.headers.allow).toBe(allowed ? 'GET, POST, PUT, PATCH, DELETE' : 'GET');
    const listed = await api.by(who).get(path);
    expect(listed.headers.allow).toBe(allowed ? 'GET, POST' : 'GET');
    const deleted = await api.by(who).delete(`${path}/${id}`);
    expect(deleted.status).toBe(expected);
    if (!allowed) {
      // WordPress's words for a permission_callback that says no.
      expect(deleted.body).toEqual({
        code: 'rest_forbidden',
        message: 'Sorry, you are not allowed to do that.',
        data: { status: 403 },
      });
      await api.by('admin').delete(`${path}/${id}`).expect(200);
    }
  });

  it('answers 401 to anonymous writes', async () => {
    const id = (await api.by('admin').post(path, { name: `Anon ${path}` })).body.id;
    const res = await api.request.delete(`${ROOT}/${path}/${id}`);
    expect([res.status, res.body.code]).toEqual([401, 'rest_forbidden']);
  });
});
