import { describe, expect, it } from '@jest/globals';
import { createEvent, ROOT, useTestApi } from './helpers.js';

// Issue 28: the differences a client of The Events Calendar 6.17.2 notices, each checked against
// what that version answered on the same machine (WordPress 7.0.4, site timezone UTC+0, `$`).
const api = useTestApi({ now: () => new Date('2030-06-15T12:00:00Z') });
const dates = { start_date: '2030-07-01 18:00:00', end_date: '2030-07-01 21:00:00' };
const create = (body: Record<string, unknown>, who: 'admin' | 'editor' | 'author' = 'editor') =>
  createEvent(api, body, who, dates);

describe('json_ld', () => {
  it('is on a single event, its venue and organizer, as schema.org data', async () => {
    const event = await create({
      title: 'Gala "night"',
      excerpt: 'Short',
      cost: ['0', '20', '30'],
      venue: {
        venue: 'Hall',
        address: '1 Main St',
        city: 'Paris',
        country: 'France',
        zip: '75001',
        phone: '123',
        website: 'https://hall.example',
      },
      organizer: [
        { organizer: 'Org', email: 'org@example.com', phone: '555', website: 'https://org.example' },
      ],
    });
    expect(event).not.toHaveProperty('json_ld');
    const single = (await api.request.get(`${ROOT}/events/${event.id}`)).body;
    const place = {
      '@type': 'Place',
      name: 'Hall',
      description: '',
      url: '',
      address: {
        '@type': 'PostalAddress',
        streetAddress: '1 Main St',
        addressLocality: 'Paris',
        postalCode: '75001',
        addressCountry: 'France',
      },
      telephone: '123',
      sameAs: 'https://hall.example',
    };
    expect(single.json_ld).toEqual({
      '@context': 'http://schema.org',
      '@type': 'Event',
      name: 'Gala &quot;night&quot;',
      description: '&lt;p&gt;Short&lt;/p&gt;\\n',
      url: single.url,
      eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
      eventStatus: 'https://schema.org/EventScheduled',
      startDate: '2030-07-01T18:00:00+00:00',
      endDate: '2030-07-01T21:00:00+00:00',
      location: place,
      organizer: {
        '@type': 'Person',
        name: 'Org',
        description: '',
        url: 'https://org.example',
        telephone: '555',
        email: 'org@example.com',
        sameAs: 'https://org.example',
      },
      offers: {
        '@type': 'Offer',
        price: 'Free – 30',
        priceCurrency: 'USD',
        url: single.url,
        category: 'primary',
        availability: 'inStock',
        validFrom: '2030-06-15T00:00:00+00:00',
      },
      performer: 'Organization',
    });
    expect(Object.keys(single).at(-1)).toBe('json_ld');
    expect(single.venue.json_ld).toEqual(place);
    expect(Object.keys(single.venue).indexOf('json_ld')).toBe(
      Object.keys(single.venue).indexOf('show_map') - 1,
    );
    expect(single.organizer[0].json_ld).toMatchObject({ '@type': 'Person', name: 'Org' });
    const venue = (await api.request.get(`${ROOT}/venues/${single.venue.id}`)).body;
    expect(venue.json_ld).toEqual(place);
    const organizer = (await api.request.get(`${ROOT}/organizers/${single.organizer[0].id}`)).body;
    expect(organizer.json_ld).toEqual(single.json_ld.organizer);
    const listed = (await api.request.get(`${ROOT}/events?include=${event.id}`)).body.events[0];
    expect(listed).not.toHaveProperty('json_ld');
    expect(listed.venue).not.toHaveProperty('json_ld');
  });

  it('gives the event offset in an event time zone and no offer without a cost', async () => {
    const event = await create({ title: 'Tokyo', timezone: 'Asia/Tokyo' });
    const single = (await api.request.get(`${ROOT}/events/${event.id}`)).body;
    expect(single.json_ld).toMatchObject({
      startDate: '2030-07-01T18:00:00+09:00',
      endDate: '2030-07-01T21:00:00+09:00',
    });
    expect(single.json_ld).not.toHaveProperty('offers');
    expect(single.json_ld).not.toHaveProperty('location');
  });
});

describe('time zone labels', () => {
  it('answers the default site zone as UTC+0, as WordPress names its default offset', async () => {
    const event = await create({ title: 'Default zone' });
    expect(event).toMatchObject({ timezone: 'UTC+0', timezone_abbr: 'UTC+0' });
    const named = await create({ title: 'Named zone', timezone: 'Europe/Paris' });
    expect(named).toMatchObject({ timezone: 'Europe/Paris', timezone_abbr: 'CEST' });
  });
});

describe('terms', () => {
  it('answers terms inside events with the WP_Term fields, and category URLs under their parents', async () => {
    const parent = (await api.by('editor').post('categories', { name: 'Music' })).body;
    const child = await api.by('editor').post('categories', { name: 'Jazz Night', parent: parent.id });
    expect(child.body.url).toMatch(/\/events\/category\/music\/jazz-night\/$/);
    expect(child.body.urls.up).toMatch(new RegExp(`/categories/${parent.id}$`));
    const event = await create({ title: 'Termed', categories: [parent.id] });
    expect(Object.keys(event.categories[0])).toEqual([
      'name',
      'slug',
      'term_group',
      'term_taxonomy_id',
      'taxonomy',
      'description',
      'parent',
      'count',
      'filter',
      'id',
      'urls',
    ]);
    expect(event.categories[0]).toMatchObject({ name: 'Music', filter: 'raw', term_group: 0, parent: 0 });
    const listed = (await api.request.get(`${ROOT}/categories?hide_empty=0&search=jazz`)).body.categories[0];
    expect(listed.url).toBe(child.body.url);
  });

  it('ignores exclude when include is given, as WP_Term_Query', async () => {
    const a = (await api.by('editor').post('categories', { name: 'Inc A' })).body;
    const b = (await api.by('editor').post('categories', { name: 'Inc B' })).body;
    const res = await api.request.get(
      `${ROOT}/categories?include=${a.id},${b.id}&exclude=${b.id}&hide_empty=0`,
    );
    expect(res.body.categories.map((t: { id: number }) => t.id)).toEqual([a.id, b.id]);
    const only = await api.request.get(`${ROOT}/categories?exclude=${b.id}&hide_empty=0&search=Inc`);
    expect(only.body.categories.map((t: { id: number }) => t.id)).toEqual([a.id]);
  });

  it('drops an unknown category id on an event write and keeps the known ones; an unknown tag id is a 400', async () => {
    const known = (await api.by('editor').post('categories', { name: 'Known' })).body;
    const event = await create({ title: 'Import', categories: [2_000_000, known.id] });
    expect(event.categories.map((t: { id: number }) => t.id)).toEqual([known.id]);
    const tagged = await api.by('editor').post('events', { title: 'Tagged', ...dates, tags: [2_000_000] });
    expect(tagged.status).toBe(400);
  });
});

describe('venues and organizers', () => {
  it('has_events=false lists those without an event of a status other than draft and pending', async () => {
    const used = (await api.by('editor').post('venues', { venue: 'Used quay' })).body;
    const drafted = (await api.by('editor').post('venues', { venue: 'Draft quay' })).body;
    const idle = (await api.by('editor').post('venues', { venue: 'Idle quay' })).body;
    await create({ title: 'Uses', venue: used.id, status: 'private' });
    await create({ title: 'Drafts', venue: drafted.id, status: 'draft' });
    const names = async (query: string) =>
      (await api.request.get(`${ROOT}/venues?${query}&per_page=50&search=quay`)).body.venues.map(
        (v: { venue: string }) => v.venue,
      );
    expect((await names('has_events=false')).sort()).toEqual(['Draft quay', 'Idle quay']);
    expect(await names('has_events=true')).toEqual(['Used quay']);
    expect(idle.id).toBeGreaterThan(0);
  });

  it('accepts an organizer email as short as a@b.c and keeps refusing what is not an address', async () => {
    const ok = await api.by('editor').post('organizers', { organizer: 'Tiny', email: 'a@b.c' });
    expect(ok.status).toBe(201);
    expect(ok.body.email).toBe('a@b.c');
    const bad = await api.by('editor').post('organizers', { organizer: 'Bad', email: 'nope' });
    expect(bad.status).toBe(400);
  });
});

describe('paging', () => {
  it('clamps a huge per_page to 50 instead of refusing it', async () => {
    const res = await api.request.get(`${ROOT}/events?per_page=99999999999`);
    expect(res.status).toBe(200);
    expect(res.body.rest_url).toContain('per_page=50');
    const venues = await api.request.get(`${ROOT}/venues?per_page=99999999999`);
    expect(venues.status).toBe(200);
    expect((await api.request.get(`${ROOT}/events?per_page=0`)).status).toBe(400);
  });
});

describe('slugs', () => {
  it('keeps non-Latin titles percent-encoded, as WordPress, and finds them by either form', async () => {
    const event = await create({ title: '日本語のイベント' });
    expect(event.slug).toBe('%e6%97%a5%e6%9c%ac%e8%aa%9e%e3%81%ae%e3%82%a4%e3%83%99%e3%83%b3%e3%83%88');
    expect(event.url).toMatch(new RegExp(`/event/${event.slug}/$`));
    const second = await create({ title: '日本語のイベント' });
    expect(second.slug).toBe(`${event.slug}-2`);
    const accented = await create({ title: 'Ünïcödé Café – Straße' });
    expect(accented.slug).toBe('unicode-cafe-strase');
    const byDecoded = await api.request.get(
      `${ROOT}/events/by-slug/${encodeURIComponent('日本語のイベント')}`,
    );
    expect(byDecoded.body.id).toBe(event.id);
  });

  it('adds __trashed to a trashed record and frees its slug; leaving the trash takes it back', async () => {
    const event = await create({ title: 'Binned' });
    const trashed = await api.by('editor').delete(`events/${event.id}`);
    expect(trashed.body).toMatchObject({ status: 'trash', slug: 'binned__trashed' });
    const venue = (await api.by('editor').post('venues', { venue: 'Binned hall' })).body;
    const gone = await api.by('editor').delete(`venues/${venue.id}`);
    expect(gone.body).toMatchObject({ status: 'trash', slug: 'binned-hall__trashed' });
    const back = await api.by('editor').post(`events/${event.id}`, { status: 'publish' });
    expect(back.body).toMatchObject({ status: 'publish', slug: 'binned' });
  });
});
