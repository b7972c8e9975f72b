import { describe, expect, it } from '@jest/globals';
import { seedEvents } from '../src/adapters/seed.js';
import { createEvent, ROOT, useTestApi } from './helpers.js';

// Issue 17: validation, orders and read rules as The Events Calendar (and ours where it leaks).
const now = new Date('2030-06-15T12:00:00Z');
const api = useTestApi({ now: () => now });
const base = { start_date: '2030-07-10 18:00', end_date: '2030-07-10 20:00' };

const create = (body: Record<string, unknown>, who: 'admin' | 'author' | 'author2' = 'admin') =>
  createEvent(api, body, who, base);

describe('item and slug routes', () => {
  it('answers 400 rest_invalid_param for an unknown slug, 404 for event id 0', async () => {
    for (const path of ['events', 'venues', 'organizers']) {
      const res = await api.request.get(`${ROOT}/${path}/by-slug/no-such-thing`);
      expect([path, res.status, res.body.code]).toEqual([path, 400, 'rest_invalid_param']);
      expect(res.body.data.details.slug.code).toBe('rest_invalid_param');
    }
    const zero = await api.request.get(`${ROOT}/events/0`);
    expect([zero.status, zero.body.code]).toEqual([404, 'rest-event-not-found']);
  });

  it('refuses an empty title on create, with data.details per parameter', async () => {
    const res = await api.by('admin').post('events', { ...base, title: '  ' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'rest_invalid_param',
      data: {
        status: 400,
        params: { title: expect.any(String) },
        details: { title: { code: 'rest_invalid_param' } },
      },
    });
  });
});

describe('organizer e-mails', () => {
  it('accepts what is_email accepts and names the field that is wrong', async () => {
    const ok = await api.by('admin').post('organizers', { organizer: 'Short Mail', email: 'ab@c.d' });
    expect([ok.status, ok.body.email]).toEqual([201, 'ab@c.d']);
    const bang = await api
      .by('admin')
      .post('organizers', { organizer: 'Bang Mail', email: "o'neil!@mail.example" });
    expect(bang.status).toBe(201);
    // Issue 28: `a@b.c` is accepted (The Events Calendar stores any text); what is not an
    // address stays refused, naming the e-mail.
    for (const email of ['ab@cd', 'a@@bc.d', 'a b@c.de', 'ab@-c.de', 'ab@c..de']) {
      const bad = await api.by('admin').post('organizers', { organizer: 'X', email });
      expect([email, bad.status, Object.keys(bad.body.data.params)]).toEqual([email, 400, ['email']]);
    }
    const inline = await api
      .by('admin')
      .post('events', { ...base, title: 'Bad inline', organizer: [{ organizer: 'Y', email: 'nope' }] });
    expect(inline.status).toBe(400);
    expect(inline.body.data.params.organizer).toMatch(/email/);
  });
});

describe('relation filters and read rules', () => {
  it('answers 400 for event=/post= naming no event the caller may read', async () => {
    const venue = await api.by('admin').post('venues', { venue: 'Filter Hall' });
    const draft = await create(
      { title: 'Draft with venue', status: 'draft', categories: ['Drafty'] },
      'author',
    );
    for (const url of [
      `${ROOT}/venues?event=${venue.body.id}`,
      `${ROOT}/organizers?event=${venue.body.id}`,
      `${ROOT}/categories?post=${venue.body.id}`,
      `${ROOT}/venues?event=${draft.id}`,
      `${ROOT}/categories?post=${draft.id}&hide_empty=false`,
      `${ROOT}/tags?event=${draft.id}`,
    ]) {
      const res = await api.request.get(url);
      expect([url, res.status, res.body.code]).toEqual([url, 400, 'rest_invalid_param']);
    }
    // Its author and editors may ask.
    const own = await api.by('author').get(`categories?post=${draft.id}&hide_empty=false`);
    expect(own.body.categories.map((c: { name: string }) => c.name)).toEqual(['Drafty']);
    const other = await api.by('author2').get(`venues?event=${draft.id}`);
    expect(other.status).toBe(400);
  });

  it('embeds no trashed or unreadable venue and organizers in a published event', async () => {
    const event = await create({
      title: 'Host changes',
      venue: { venue: 'Soon Trashed Hall' },
      organizer: [{ organizer: 'Soon Trashed Org' }, { organizer: 'Kept Org' }],
    });
    await api.by('admin').delete(`venues/${event.venue.id}`).expect(200);
    await api.by('admin').delete(`organizers/${event.organizer[0].id}`).expect(200);
    const read = await api.request.get(`${ROOT}/events/${event.id}`);
    expect(read.body.venue).toEqual([]);
    expect(read.body.organizer.map((o: { organizer: string }) => o.organizer)).toEqual(['Kept Org']);
    const listed = await api.request.get(`${ROOT}/events?include=${event.id}`);
    expect(listed.body.events[0].venue).toEqual([]);
  });

  it('keeps venues without events when has_events=false, and lists venues newest first', async () => {
    await api.by('admin').post('venues', { venue: 'Older Empty Hall', date: '2030-01-01 10:00' });
    await api.by('admin').post('venues', { venue: 'Newer Empty Hall', date: '2030-02-01 10:00' });
    const all = await api.request.get(`${ROOT}/venues?has_events=false&search=Empty Hall`);
    expect(all.body.venues.map((v: { venue: string }) => v.venue)).toEqual([
      'Newer Empty Hall',
      'Older Empty Hall',
    ]);
    const withEvents = await api.request.get(`${ROOT}/venues?has_events=true&search=Empty Hall`);
    expect(withEvents.body.total).toBe(0);
  });
});

describe('terms', () => {
  it('refuses include of term ids that do not exist and sorts names case-insensitively', async () => {
    for (const name of ['beta', 'Alpha', 'gamma']) {
      await api.by('admin').post('categories', { name: `${name} sort` });
    }
    const sorted = await api.request.get(`${ROOT}/categories?hide_empty=false&search=sort`);
    expect(sorted.body.categories.map((c: { name: string }) => c.name)).toEqual([
      'Alpha sort',
      'beta sort',
      'gamma sort',
    ]);
    const id = sorted.body.categories[0].id;
    const missing = await api.request.get(`${ROOT}/categories?include=${id},999999`);
    expect([missing.status, missing.body.code]).toEqual([400, 'rest_invalid_param']);
    const ok = await api.request.get(`${ROOT}/categories?include=${id}&hide_empty=false`);
    expect(ok.body.total).toBe(1);
  });
});

describe('lists', () => {
  it('takes status as a CSV list or an array for roles that may see those statuses', async () => {
    await create({ title: 'Status draft', status: 'draft' });
    await create({ title: 'Status published' });
    for (const query of ['status=draft,publish', 'status[]=draft&status[]=publish']) {
      const res = await api.by('admin').get(`events?${query}&search=status`);
      expect([query, res.body.events.map((e: { title: string }) => e.title).sort()]).toEqual([
        query,
        ['Status draft', 'Status published'],
      ]);
      const anonymous = await api.request.get(`${ROOT}/events?${query}`);
      expect([query, anonymous.status]).toEqual([query, 400]);
    }
    const onlyPublished = await api.request.get(`${ROOT}/events?status=publish,publish&search=status`);
    expect(onlyPublished.body.events.map((e: { title: string }) => e.title)).toEqual(['Status published']);
  });

  it('clamps per_page above 50 instead of refusing it', async () => {
    await seedEvents(api.knex, 60, { timezone: 'UTC', now });
    const res = await api.request.get(`${ROOT}/events?per_page=200`);
    expect(res.status).toBe(200);
    expect(res.body.events).toHaveLength(50);
    expect(res.body.total_pages).toBe(Math.ceil(res.body.total / 50));
  });
});

describe('headers', () => {
  it('sends the API Link on every answer and Allow with the methods the caller may use', async () => {
    const anonymous = await api.request.get(`${ROOT}/events`);
    expect(anonymous.headers.link).toMatch(
      /^<http:\/\/127\.0\.0\.1:\d+\/wp-json\/>; rel="https:\/\/api\.w\.org\/"$/,
    );
    expect(anonymous.headers.allow).toBe('GET');
    const admin = await api.by('admin').get('events');
    expect(admin.headers.allow).toBe('GET, POST');
    const event = await create({ title: 'Allow me' });
    // Issue 44: per record, as TEC's can_edit/can_delete (an admin's event: the author only reads).
    const item = await api.by('author').get(`events/${event.id}`);
    expect(item.headers.allow).toBe('GET');
    const own = await create({ title: 'Allow mine' }, 'author');
    const mine = await api.by('author').get(`events/${own.id}`);
    expect(mine.headers.allow).toBe('GET, DELETE, POST, PUT, PATCH');
    const tags = await api.by('author').get('tags');
    expect(tags.headers.allow).toBe('GET');
    const categories = await api.by('author').get('categories');
    expect(categories.headers.allow).toBe('GET, POST');
    const category = await api.by('author').get('categories/999999');
    // Issue 44: authors delete categories in TEC (its can_delete is can_create).
    expect([category.status, category.headers.allow]).toEqual([400, 'GET, POST, PUT, PATCH, DELETE']);
    const none = await api.request.get(`${ROOT}/nowhere`);
    expect(none.status).toBe(404);
    expect(none.headers.link).toBeDefined();
    expect(none.headers.allow).toBeUndefined();
  });
});
