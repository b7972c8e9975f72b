import { describe, expect, it } from '@jest/globals';
import { ROOT } from './helpers.js';
import { useWriteFixture } from './write-fixture.js';

// Creating and updating events (the app: write-fixture.ts).
const { api, base, post } = useWriteFixture();

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
    const venue = (await api.by('admin').post('venues', { venue: 'Annex' })).body;
    const o1 = (await api.by('admin').post('organizers', { organizer: 'Org One' })).body;
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
    const cleared = await api.by('admin').patch(`events/${res.body.id}`, { venue: [], organizer: [] });
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
    const cleared = await api.by('admin').put(`events/${res.body.id}`, { categories: '', tags: [] });
    expect(cleared.body.categories).toEqual([]);
    expect(cleared.body.tags).toEqual([]);
  });

  it('accepts form-encoded bodies', async () => {
    const res = await api
      .by('admin')
      .post('events')
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
      const res = await api.by('admin')[method](`events/${created.id}`, { title: `Partial ${method}` });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        title: `Partial ${method}`,
        description: '<p>Keep me</p>',
        cost: '$10',
        start_date: created.start_date,
      });
    }
  });

  it('updates by slug and ignores read-only fields', async () => {
    const created = (await post({ ...base, title: 'Slugged' })).body;
    const res = await api.by('admin').patch(`events/by-slug/${created.slug}`, {
      excerpt: 'Short',
      id: 424242,
      global_id: 'x',
      rest_url: 'y',
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(created.id);
    expect(res.body.excerpt).toBe('<p>Short</p>');
    const read = await api.request.get(`${ROOT}/events/by-slug/${created.slug}`);
    expect(read.body.excerpt).toBe('<p>Short</p>');
  });

  it('answers 404 rest-event-not-found for missing ids and 404 rest_no_route for non-digit ids', async () => {
    const missing = await api.request.get(`${ROOT}/events/999999`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('rest-event-not-found');
    const patch = await api.by('admin').patch('events/999999', { title: 'x' });
    expect(patch.status).toBe(404);
    const route = await api.request.get(`${ROOT}/events/foo`);
    expect(route.status).toBe(404);
    expect(route.body.code).toBe('rest_no_route');
  });

  it('sets and removes the event password', async () => {
    const created = (await post({ ...base, title: 'Locked', password: 'pw' })).body;
    expect((await api.request.get(`${ROOT}/events/${created.id}`)).status).toBe(403);
    await api.by('admin').patch(`events/${created.id}`, { password: '' });
    expect((await api.request.get(`${ROOT}/events/${created.id}`)).status).toBe(200);
  });
});
