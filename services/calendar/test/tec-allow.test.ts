import { describe, expect, it } from '@jest/globals';
import { createEvent, day, type Role, useTestApi } from './helpers.js';

// Issue 44 point 3: `Allow` per record, as TEC 6.17.2 computes it. WordPress's
// rest_send_allow_header asks each handler's permission_callback with the request, and
// Single_Event / Single_Venue / Single_Organizer::can_edit and can_delete check edit_post and
// delete_post on the record the route names (by-slug handlers set `id` before).
const api = useTestApi();

const all = 'GET, DELETE, POST, PUT, PATCH';
const event = (who: Role, body: Record<string, unknown> = {}) =>
  createEvent(api, body, who, { title: `By ${who}`, start_date: day(2), end_date: day(2, '11:00:00') });
const allowOf = async (who: Role | undefined, path: string) => {
  const res = who ? await api.by(who).get(path) : await api.request.get(`/wp-json/cal/events/v1/${path}`);
  return res.headers.allow;
};

describe('Allow on events', () => {
  it('answers what the caller may do to that event, by id and by slug', async () => {
    const admins = await event('admin');
    const authors = await event('author');
    const drafted = await event('contributor');
    const published = await event('contributor');
    await api.by('editor').patch(`events/${published.id}`, { status: 'publish' }).expect(200);
    const cases: [Role | undefined, { id: number; slug: string }, string][] = [
      ['author', admins, 'GET'],
      ['author2', authors, 'GET'],
      ['author', authors, all],
      ['editor', authors, all],
      ['contributor', drafted, all],
      ['contributor', published, 'GET'],
      ['contributor', admins, 'GET'],
      ['subscriber', admins, 'GET'],
      [undefined, admins, 'GET'],
    ];
    for (const [who, record, allow] of cases) {
      expect([who, record.id, await allowOf(who, `events/${record.id}`)]).toEqual([who, record.id, allow]);
      expect([who, record.slug, await allowOf(who, `events/by-slug/${record.slug}`)]).toEqual([
        who,
        record.slug,
        allow,
      ]);
    }
  });

  it('falls back to the role on a missing event, as TEC does to reach its 404', async () => {
    expect(await allowOf('author', 'events/999999')).toBe(all);
    expect(await allowOf('subscriber', 'events/999999')).toBe('GET');
  });

  it('matches the answer of a refused write', async () => {
    const admins = await event('admin');
    const res = await api.by('author').delete(`events/${admins.id}`);
    expect([res.status, res.headers.allow]).toEqual([403, 'GET']);
  });
});

const linkedCases: ['venues' | 'organizers', 'venue' | 'organizer'][] = [
  ['venues', 'venue'],
  ['organizers', 'organizer'],
];

describe.each(linkedCases)('Allow on %s', (path, name) => {
  it('answers per record; a missing one allows only GET (map_meta_cap: do_not_allow)', async () => {
    const theirs = (await api.by('admin').post(path, { [name]: `Admin ${name}` })).body;
    const mine = (await api.by('author').post(path, { [name]: `Author ${name}` })).body;
    expect(await allowOf('author', `${path}/${theirs.id}`)).toBe('GET');
    expect(await allowOf('author', `${path}/${mine.id}`)).toBe(all);
    expect(await allowOf('author', `${path}/by-slug/${mine.slug}`)).toBe(all);
    expect(await allowOf('author', `${path}/by-slug/${theirs.slug}`)).toBe('GET');
    expect(await allowOf('editor', `${path}/${mine.id}`)).toBe(all);
    expect(await allowOf('editor', `${path}/999999`)).toBe('GET');
    expect(await allowOf('author', path)).toBe('GET, POST');
  });
});
