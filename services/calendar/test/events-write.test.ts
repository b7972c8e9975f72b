import { describe, expect, it } from '@jest/globals';
import { formatWall, fromWall, parseWall, toWall } from '../src/domain/dates.js';
import { ROOT, type TestApi, useTestApi } from './helpers.js';

const now = new Date('2030-06-15T12:00:00Z');
// With the GET cache on: every read-after-write below also checks that writes invalidate it.
const api = useTestApi({ now: () => now, timezone: 'Europe/Paris', cacheTtlMs: 60_000 });

const base = { title: 'Board Games', start_date: '2030-07-01 18:00:00', end_date: '2030-07-01 21:00:00' };
const post = (body: Record<string, unknown>, who: Parameters<TestApi['as']>[0] = 'admin') =>
  api.request.post(`${ROOT}/events`).set(api.as(who)).send(body);

describe('create events', () => {
  it('creates with 201, reading dates in the site timezone and deriving UTC', async () => {
    const res = await post(base);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Board Games',
      status: 'publish',
      author: '1',
      slug: 'board-games',
      start_date: '2030-07-01 18:00:00',
      utc_start_date: '2030-07-01 16:00:00',
      timezone: 'Europe/Paris',
      timezone_abbr: expect.stringMatching(/^(CEST|GMT\+2)$/),
      venue: [],
      organizer: [],
      image: false,
    });
  });

  it('reads dates in the timezone given and accepts relative English', async () => {
    const res = await post({
      ...base,
      title: 'NY Brunch',
      timezone: 'America/New_York',
      start_date: 'tomorrow 9am',
      end_date: 'tomorrow 11am',
    });
    expect(res.status).toBe(201);
    expect(res.body.start_date).toBe('2030-06-16 09:00:00');
    expect(res.body.utc_start_date).toBe('2030-06-16 13:00:00');
  });

  it('answers 400 rest_missing_callback_param when required fields are missing', async () => {
    const res = await post({ title: 'No dates' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): start_date, end_date',
      data: { status: 400, params: ['start_date', 'end_date'] },
    });
  });

  it('answers 400 for unparseable dates, bad websites, unknown authors and timezones', async () => {
    for (const [body, param] of [
      [{ ...base, start_date: 'whenever' }, 'start_date'],
      [{ ...base, website: 'not a url' }, 'website'],
      [{ ...base, author: 999 }, 'author'],
      [{ ...base, timezone: 'Mars/Olympus' }, 'timezone'],
    ] as const) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('rest_invalid_param');
      expect(res.body.data.params).toHaveProperty(param);
    }
  });

  it('moves an end before the start to the start, and spans whole days when all_day', async () => {
    const reversed = await post({ ...base, title: 'Reversed', end_date: '2030-07-01 10:00:00' });
    expect(reversed.body.end_date).toBe(reversed.body.start_date);
    const allDay = await post({ ...base, title: 'Fair', all_day: true, end_date: '2030-07-02 10:00' });
    expect(allDay.body).toMatchObject({
      all_day: true,
      start_date: '2030-07-01 00:00:00',
      end_date: '2030-07-02 23:59:59',
    });
  });

  it('creates venues and organizers inline, deduplicated case-insensitively', async () => {
    const first = await post({
      ...base,
      title: 'Gig 1',
      venue: { venue: 'The Loft', city: 'Paris' },
      organizer: [{ organizer: 'Night Owls' }],
    });
    const second = await post({
      ...base,
      title: 'Gig 2',
      venue: { venue: 'the loft', city: 'PARIS' },
      organizer: { organizer: 'NIGHT OWLS' },
    });
    expect(first.status).toBe(201);
    expect(second.body.venue.id).toBe(first.body.venue.id);
    expect(second.body.organizer[0].id).toBe(first.body.organizer[0].id);
    const venues = await api.request.get(`${ROOT}/venues?search=loft`);
    expect(venues.body.total).toBe(1);
  });

  it('links venues and organizers by id, {id} and mixed lists; a missing id is 400 rest_invalid_param (issue 17)', async () => {
    const venue = (await api.request.post(`${ROOT}/venues`).set(api.as('admin')).send({ venue: 'Annex' }))
      .body;
    const o1 = (
      await api.request.post(`${ROOT}/organizers`).set(api.as('admin')).send({ organizer: 'Org One' })
    ).body;
    const res = await post({
      ...base,
      title: 'Linked',
      venue: venue.id,
      organizer: [o1.id, { id: o1.id }, { organizer: 'Org Two' }],
    });
    expect(res.status).toBe(201);
    expect(res.body.venue.venue).toBe('Annex');
    expect(res.body.organizer.map((o: { organizer: string }) => o.organizer)).toEqual(['Org One', 'Org Two']);
    const missing = await post({ ...base, title: 'Bad link', venue: 987654 });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('rest_invalid_param');
    const cleared = await api.request
      .patch(`${ROOT}/events/${res.body.id}`)
      .set(api.as('admin'))
      .send({ venue: [], organizer: [] });
    expect(cleared.body.venue).toEqual([]);
    expect(cleared.body.organizer).toEqual([]);
  });

  it('creates terms by name, links them by id, and clears them with []', async () => {
    const res = await post({ ...base, title: 'Tagged', categories: ['Workshops', 'Kids'], tags: ['free'] });
    expect(res.body.categories.map((t: { name: string }) => t.name).sort()).toEqual(['Kids', 'Workshops']);
    expect(res.body.categories[0]).toMatchObject({ taxonomy: 'cal_events_cat', parent: 0, term_group: 0 });
    const kids = res.body.categories.find((t: { name: string }) => t.name === 'Kids');
    const again = await post({ ...base, title: 'Tagged 2', categories: [kids.id, 'workshops'] });
    expect(again.body.categories.map((t: { id: number }) => t.id).sort()).toEqual(
      res.body.categories.map((t: { id: number }) => t.id).sort(),
    );
    const cleared = await api.request
      .put(`${ROOT}/events/${res.body.id}`)
      .set(api.as('admin'))
      .send({ categories: '', tags: [] });
    expect(cleared.body.categories).toEqual([]);
    expect(cleared.body.tags).toEqual([]);
  });

  it('accepts form-encoded bodies', async () => {
    const res = await api.request
      .post(`${ROOT}/events`)
      .set(api.as('admin'))
      .type('form')
      .send(
        'title=Form+Event&start_date=2030-07-03+10:00&end_date=2030-07-03+11:00&featured=1&tags[]=alpha&tags[]=beta',
      );
    expect(res.status).toBe(201);
    expect(res.body.featured).toBe(true);
    expect(res.body.tags.map((t: { slug: string }) => t.slug).sort()).toEqual(['alpha', 'beta']);
  });
});

describe('update events', () => {
  it('updates partially with POST, PUT and PATCH, keeping fields not sent', async () => {
    const created = (await post({ ...base, title: 'Partial', description: 'Keep me', cost: '10' })).body;
    for (const method of ['post', 'put', 'patch'] as const) {
      const res = await api.request[method](`${ROOT}/events/${created.id}`)
        .set(api.as('admin'))
        .send({ title: `Partial ${method}` });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        title: `Partial ${method}`,
        description: '<p>Keep me</p>\n',
        cost: '10',
        start_date: created.start_date,
      });
    }
  });

  it('updates by slug and ignores read-only fields', async () => {
    const created = (await post({ ...base, title: 'Slugged' })).body;
    const res = await api.request
      .patch(`${ROOT}/events/by-slug/${created.slug}`)
      .set(api.as('admin'))
      .send({ excerpt: 'Short', id: 424242, global_id: 'x', rest_url: 'y' });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(created.id);
    expect(res.body.excerpt).toBe('<p>Short</p>\n');
    const read = await api.request.get(`${ROOT}/events/by-slug/${created.slug}`);
    expect(read.body.excerpt).toBe('<p>Short</p>\n');
  });

  it('answers 404 rest-event-not-found for missing ids and 404 rest_no_route for non-digit ids', async () => {
    const missing = await api.request.get(`${ROOT}/events/999999`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('rest-event-not-found');
    const patch = await api.request.patch(`${ROOT}/events/999999`).set(api.as('admin')).send({ title: 'x' });
    expect(patch.status).toBe(404);
    const route = await api.request.get(`${ROOT}/events/foo`);
    expect(route.status).toBe(404);
    expect(route.body.code).toBe('rest_no_route');
  });

  it('sets and removes the event password', async () => {
    const created = (await post({ ...base, title: 'Locked', password: 'pw' })).body;
    expect((await api.request.get(`${ROOT}/events/${created.id}`)).status).toBe(403);
    await api.request.patch(`${ROOT}/events/${created.id}`).set(api.as('admin')).send({ password: '' });
    expect((await api.request.get(`${ROOT}/events/${created.id}`)).status).toBe(200);
  });
});

describe('linked records inside event writes', () => {
  it('checks the author of an inline venue as the event author', async () => {
    const res = await post({ ...base, venue: { venue: 'Borrowed Hall', author: 1 } }, 'contributor');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('rest_forbidden');
  });

  it('refuses to link a venue the caller may not read, as if it did not exist', async () => {
    const hidden = (
      await api.request.post(`${ROOT}/venues`).set(api.as('contributor')).send({ venue: 'Private Loft' })
    ).body;
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
    expect(list.cost).toBe('5 – 15');
    expect(list.cost_details.values).toEqual(['5', '15']);
    const number = (await post({ ...base, title: 'Priced 2', cost: 12.5 })).body;
    expect([number.cost, number.cost_details.values]).toEqual(['12.5', ['12.5']]);
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
    await api.request.patch(`${ROOT}/events/${created.id}`).set(api.as('admin')).send({ excerpt: 'x' });
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
    const first = await api.request.delete(`${ROOT}/events/${created.id}`).set(api.as('admin'));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: created.id, status: 'trash' });
    const again = await api.request.delete(`${ROOT}/events/${created.id}`).set(api.as('admin'));
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('event-is-in-trash');
    const read = await api.request.get(`${ROOT}/events/${created.id}`);
    expect(read.status).toBe(403);
    expect(read.body.code).toBe('event-no-longer-available');
    const missing = await api.request.delete(`${ROOT}/events/999999`).set(api.as('admin'));
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
    const edit = await api.request
      .patch(`${ROOT}/events/${own.body.id}`)
      .set(api.as('author'))
      .send({ title: 'Edited' });
    expect(edit.status).toBe(200);
    const other = await api.request
      .patch(`${ROOT}/events/${own.body.id}`)
      .set(api.as('author2'))
      .send({ title: 'Nope' });
    expect(other.status).toBe(403);
    const editor = await api.request
      .patch(`${ROOT}/events/${own.body.id}`)
      .set(api.as('editor'))
      .send({ title: 'Editor edit' });
    expect(editor.status).toBe(200);
    const contributorDelete = await api.request
      .delete(`${ROOT}/events/${own.body.id}`)
      .set(api.as('contributor'));
    expect(contributorDelete.status).toBe(403);
  });
});
