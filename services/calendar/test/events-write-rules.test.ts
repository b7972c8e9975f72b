import { describe, expect, it } from '@jest/globals';
import { formatWall, fromWall, parseWall, toWall } from '../src/domain/dates.js';
import { ROOT } from './helpers.js';
import { useWriteFixture } from './write-fixture.js';

// Event writes: linked records, all-day events, cost, the GET cache, trash and permissions.
const { api, base, post } = useWriteFixture();

describe('linked records inside event writes', () => {
  it('checks the author of an inline venue as the event author', async () => {
    const res = await post({ ...base, venue: { venue: 'Borrowed Hall', author: 1 } }, 'contributor');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('rest_forbidden');
  });

  it('refuses to link a venue the caller may not read, as if it did not exist', async () => {
    const hidden = (await api.by('contributor').post('venues', { venue: 'Private Loft' })).body;
    expect(hidden.status).toBe('draft');
    for (const venue of [hidden.id, { id: hidden.id }]) {
      const res = await post({ ...base, title: 'Borrowing', venue }, 'author2');
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('rest_invalid_param');
    }
    expect((await post({ ...base, title: 'Own loft', venue: hidden.id }, 'contributor')).status).toBe(201);
  });

  it('answers 400 rest_invalid_param to an id beyond any record', async () => {
    const res = await post({ ...base, venue: { id: 99_999_999_999 } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('rest_invalid_param');
  });
});

describe('all-day events where midnight does not exist', () => {
  it('stores the wall time the start instant shows, local and UTC agreeing', async () => {
    // Some zones move clocks at midnight (Santiago): find such a day rather than hard-code it.
    const zone = 'America/Santiago';
    let day: string | undefined;
    for (let d = Date.UTC(2030, 0, 1); d < Date.UTC(2031, 0, 1) && !day; d += 86_400_000) {
      const midnight = parseWall(`${new Date(d).toISOString().slice(0, 10)} 00:00:00`);
      if (toWall(fromWall(midnight, zone), zone).hour !== 0) day = formatWall(midnight).slice(0, 10);
    }
    expect(day).toBeDefined();
    const res = await post({
      ...base,
      title: 'Skipped midnight',
      all_day: true,
      timezone: zone,
      start_date: day,
      end_date: day,
    });
    expect(res.status).toBe(201);
    const shown = formatWall(toWall(new Date(`${res.body.utc_start_date.replace(' ', 'T')}Z`), zone));
    expect(res.body.start_date).toBe(shown);
    expect(res.body.start_date).not.toBe(`${day} 00:00:00`);
  });
});

describe('cost', () => {
  it('takes a price, a number or a list of prices, and refuses anything else', async () => {
    const list = (await post({ ...base, title: 'Priced', cost: ['5', 15] })).body;
    // Issue 17: a list of prices shows as a range, as The Events Calendar.
    expect(list.cost).toBe('$5 – $15');
    expect(list.cost_details.values).toEqual(['5', '15']);
    const number = (await post({ ...base, title: 'Priced 2', cost: 12.5 })).body;
    expect([number.cost, number.cost_details.values]).toEqual(['$12.5', ['12.5']]);
    const object = await post({ ...base, title: 'Priced 3', cost: { a: 1 } });
    expect(object.status).toBe(400);
    expect(object.body.data.params.cost).toBe('cost must be a string, a number or a list of them.');
  });
});

describe('GET cache', () => {
  it('serves repeated reads from the cache and drops it on writes', async () => {
    const created = (await post({ ...base, title: 'Cached' })).body;
    const first = await api.request.get(`${ROOT}/events/${created.id}`);
    await api.knex('cal_events').where('id', created.id).update({ title: 'Changed behind the API' });
    const cached = await api.request.get(`${ROOT}/events/${created.id}`);
    expect(cached.body.title).toBe(first.body.title);
    await api.by('admin').patch(`events/${created.id}`, { excerpt: 'x' });
    const fresh = await api.request.get(`${ROOT}/events/${created.id}`);
    expect(fresh.body.title).toBe('Changed behind the API');
  });

  it('keeps the headers of a list on hits and answers HEAD from the same entry', async () => {
    const listed = (await post({ ...base, title: 'Listed' })).body;
    const first = await api.request.get(`${ROOT}/events?start_date=2030-01-01`);
    // Changed behind the API: only a hit still answers the old title.
    await api.knex('cal_events').where('id', listed.id).update({ title: 'Listed, changed' });
    const hit = await api.request.get(`${ROOT}/events?start_date=2030-01-01`);
    expect(hit.text).toBe(first.text);
    expect(hit.text).not.toContain('Listed, changed');
    for (const name of ['x-wp-total', 'x-wp-totalpages', 'x-tec-total', 'x-tec-totalpages', 'content-type']) {
      expect(hit.headers[name]).toBe(first.headers[name]);
    }
    expect(Number(hit.headers['content-length'])).toBe(Buffer.byteLength(first.text));
    const head = await api.request.head(`${ROOT}/events?start_date=2030-01-01`);
    expect(head.status).toBe(200);
    expect(head.headers['x-wp-total']).toBe(first.headers['x-wp-total']);
    expect(head.text ?? '').toBe('');
  });

  // Issue 17: GET parameters come from the URL only (a body would bypass the cache), so a
  // password sent in a GET body unlocks nothing and cannot fill the entry of its URL.
  it('never lets a GET body (here a password) fill the entry of its URL', async () => {
    const locked = (await post({ ...base, title: 'Body locked', password: 'pw' })).body;
    const unlocked = await api.request.get(`${ROOT}/events/${locked.id}`).send({ password: 'pw' });
    expect(unlocked.status).toBe(403);
    const query = await api.request.get(`${ROOT}/events/${locked.id}?password=pw`);
    expect(query.status).toBe(200);
    const plain = await api.request.get(`${ROOT}/events/${locked.id}`);
    expect(plain.status).toBe(403);
    expect(plain.body.code).toBe('event-password-protected');
  });

  it('keeps answers apart per Host, since they embed absolute URLs', async () => {
    const created = (await post({ ...base, title: 'Two hosts' })).body;
    const one = await api.request.get(`${ROOT}/events/${created.id}`).set('Host', 'one.example');
    const two = await api.request.get(`${ROOT}/events/${created.id}`).set('Host', 'two.example');
    expect(one.body.rest_url).toBe(`http://one.example${ROOT}/events/${created.id}`);
    expect(two.body.rest_url).toBe(`http://two.example${ROOT}/events/${created.id}`);
  });
});

describe('delete and trash', () => {
  it('moves to trash (200 with status trash), then 410; GET answers 403', async () => {
    const created = (await post({ ...base, title: 'Doomed' })).body;
    const first = await api.by('admin').delete(`events/${created.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: created.id, status: 'trash' });
    const again = await api.by('admin').delete(`events/${created.id}`);
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('event-is-in-trash');
    const read = await api.request.get(`${ROOT}/events/${created.id}`);
    expect(read.status).toBe(403);
    expect(read.body.code).toBe('event-no-longer-available');
    const missing = await api.by('admin').delete('events/999999');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('rest-event-not-found');
  });
});

describe('permissions', () => {
  it('answers 401 to anonymous writes and 403 to subscribers', async () => {
    const anonymous = await api.request.post(`${ROOT}/events`).send(base);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe('rest_forbidden');
    const subscriber = await post(base, 'subscriber');
    expect(subscriber.status).toBe(403);
    expect(subscriber.body.code).toBe('rest_forbidden');
  });

  it('checks validation (400) before permission (401)', async () => {
    const res = await api.request.post(`${ROOT}/events`).send({ title: 'x' });
    expect(res.status).toBe(400);
  });

  it('gives contributors draft by default and pending when asking to publish', async () => {
    const draft = await post({ ...base, title: 'Contrib draft' }, 'contributor');
    expect(draft.body.status).toBe('draft');
    expect(draft.body.author).toBe('4');
    const pending = await post({ ...base, title: 'Contrib pending', status: 'publish' }, 'contributor');
    expect(pending.body.status).toBe('pending');
    // Not published: invisible to anonymous readers.
    expect((await api.request.get(`${ROOT}/events/${draft.body.id}`)).status).toBe(403);
  });

  it('lets authors publish and edit their own events only', async () => {
    const own = await post({ ...base, title: 'Author event' }, 'author');
    expect(own.body.status).toBe('publish');
    const edit = await api.by('author').patch(`events/${own.body.id}`, { title: 'Edited' });
    expect(edit.status).toBe(200);
    const other = await api.by('author2').patch(`events/${own.body.id}`, { title: 'Nope' });
    expect(other.status).toBe(403);
    const editor = await api.by('editor').patch(`events/${own.body.id}`, { title: 'Editor edit' });
    expect(editor.status).toBe(200);
    const contributorDelete = await api.by('contributor').delete(`events/${own.body.id}`);
    expect(contributorDelete.status).toBe(403);
  });
});
