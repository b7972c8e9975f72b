import { describe, expect, it } from '@jest/globals';
import { ROOT } from './helpers.js';
import { useListFixture } from './list-fixture.js';

// The list envelope, paging and the date window (the shared events: list-fixture.ts).
const { api, ids, titles } = useListFixture();

describe('GET /events envelope', () => {
  it('answers the envelope with totals in body and headers', async () => {
    const res = await api.request.get(`${ROOT}/events`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['events', 'rest_url', 'total', 'total_pages']);
    expect(res.body.total).toBe(5);
    expect(res.body.total_pages).toBe(1);
    expect(res.headers['x-tec-total']).toBe('5');
    expect(res.headers['x-tec-totalpages']).toBe('1');
    expect(res.headers['x-wp-total']).toBe('5');
    expect(res.headers['x-wp-totalpages']).toBe('1');
    // Issue 44: TEC repeats the resolved query (Archive_Base::get_current_rest_url), its
    // values as add_query_arg leaves them: not encoded. (It used to echo the request's query.)
    expect(res.body.rest_url).toMatch(
      /\/wp-json\/cal\/events\/v1\/events\/\?page=1&per_page=10&start_date=2030-06-14 00:00:00&end_date=2032-06-15 23:59:59&status=publish$/,
    );
  });

  it('lists in start order and keeps the event field order', async () => {
    const res = await api.request.get(`${ROOT}/events`);
    expect(titles(res)).toEqual(['Jazz Night', 'Rock Concert', 'Chess Club', 'Secret Party', 'Morning Yoga']);
    expect(Object.keys(res.body.events[0])).toEqual([
      'id',
      'global_id',
      'global_id_lineage',
      'author',
      'status',
      'date',
      'date_utc',
      'modified',
      'modified_utc',
      'url',
      'rest_url',
      'title',
      'description',
      'excerpt',
      'slug',
      'image',
      'all_day',
      'start_date',
      'start_date_details',
      'end_date',
      'end_date_details',
      'utc_start_date',
      'utc_end_date',
      'utc_start_date_details',
      'utc_end_date_details',
      'timezone',
      'timezone_abbr',
      'cost',
      'cost_details',
      'website',
      'show_map',
      'show_map_link',
      'hide_from_listings',
      'sticky',
      'featured',
      'ticketed',
      'categories',
      'tags',
      'venue',
      'organizer',
      'custom_fields',
      // Our extension (issue 41), absent in TEC 6.17.2's answer: after every key of TEC's, which
      // keep its order. TEC's clients ignore a key they do not know.
      'captions',
    ]);
    expect(res.body.events[0].start_date_details).toEqual({
      year: '2030',
      month: '06',
      day: '20',
      hour: '20',
      minutes: '00',
      seconds: '00',
    });
  });

  // Issue 44: as TEC's get_next_rest_url / get_previous_rest_url: `page` removed (which
  // urlencodes the other values again) and the new one appended; previous to page 1 has none.
  it('links next and previous pages; previous to page 1 drops page', async () => {
    const window = 'start_date=2030-06-14+00%3A00%3A00&end_date=2032-06-15+23%3A59%3A59&status=publish';
    const first = await api.request.get(`${ROOT}/events?per_page=2`);
    expect(first.body.next_rest_url.endsWith(`events/?per_page=2&${window}&page=2`)).toBe(true);
    expect(first.body.previous_rest_url).toBeUndefined();
    const second = await api.request.get(`${ROOT}/events?per_page=2&page=2`);
    expect(second.body.rest_url).toMatch(/events\/\?page=2&per_page=2&start_date=2030-06-14 00:00:00&/);
    expect(second.body.next_rest_url).toMatch(/page=3$/);
    expect(second.body.previous_rest_url.endsWith(`events/?per_page=2&${window}`)).toBe(true);
    const last = await api.request.get(`${ROOT}/events?per_page=2&page=3`);
    expect(last.body.next_rest_url).toBeUndefined();
    expect(titles(last)).toEqual(['Morning Yoga']);
  });

  it('clamps per_page to 50', async () => {
    const res = await api.request.get(`${ROOT}/events?per_page=500`);
    expect(res.status).toBe(200);
    expect(res.body.total_pages).toBe(1);
    expect(res.body.events).toHaveLength(5);
  });

  it.each([
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['per_page=-1', 'per_page'],
    ['start_date=not-a-date', 'start_date'],
    ['include=1,x', 'include'],
    ['categories=unknown-slug', 'categories'],
    ['venue=999999', 'venue'],
    ['organizer=abc', 'organizer'],
    ['post_parent=999999', 'post_parent'],
    ['status=bogus', 'status'],
    ['geoloc_lat=48.8', 'geoloc_lng'],
  ])('answers 400 rest_invalid_param for %s', async (query, param) => {
    const res = await api.request.get(`${ROOT}/events?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('rest_invalid_param');
    expect(res.body.message).toBe(`Invalid parameter(s): ${param}`);
    expect(res.body.data.status).toBe(400);
    expect(Object.keys(res.body.data.params)).toEqual([param]);
  });

  it('answers 404 past the last page and 200 for an empty first page', async () => {
    const past = await api.request.get(`${ROOT}/events?page=9`);
    expect(past.status).toBe(404);
    expect(past.body).toEqual({
      code: 'event-archive-page-not-found',
      message: expect.any(String),
      data: { status: 404 },
    });
    const empty = await api.request.get(`${ROOT}/events?search=nothingmatcheszzz`);
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ events: [], total: 0, total_pages: 0 });
  });
});

describe('GET /events dates', () => {
  it('applies the default window (yesterday .. +24 months)', async () => {
    const res = await api.request.get(`${ROOT}/events`);
    expect(titles(res)).not.toContain('Old Fair');
    expect(titles(res)).not.toContain('Far Future Gala');
  });

  it('widens start_date/end_date to whole days unless strict_dates', async () => {
    const loose = await api.request.get(
      `${ROOT}/events?start_date=2030-06-21 23:00&end_date=2030-06-22 00:30`,
    );
    expect(titles(loose)).toEqual(['Rock Concert', 'Chess Club']);
    const strict = await api.request.get(
      `${ROOT}/events?start_date=2030-06-21 23:00&end_date=2030-06-22 20:00&strict_dates=true`,
    );
    expect(titles(strict)).toEqual(['Chess Club']);
  });

  it('drops the default window when starts_*/ends_* are given', async () => {
    const res = await api.request.get(`${ROOT}/events?starts_before=2030-06-10`);
    expect(titles(res)).toEqual(['Old Fair']);
    const after = await api.request.get(`${ROOT}/events?starts_after=2032-12-31`);
    expect(titles(after)).toEqual(['Far Future Gala']);
    const ends = await api.request.get(`${ROOT}/events?ends_after=2030-06-25&ends_before=2030-06-27`);
    expect(titles(ends)).toEqual(['Morning Yoga']);
  });

  it('accepts relative English dates', async () => {
    const res = await api.request.get(`${ROOT}/events`).query({ start_date: '+7 days 9am', strict_dates: 1 });
    expect(res.status).toBe(200);
    expect(titles(res)).toEqual(['Chess Club', 'Secret Party', 'Morning Yoga']);
  });

  it('include ignores the date filters and orders by post date', async () => {
    const res = await api.request.get(`${ROOT}/events?include=${ids['Old Fair']},${ids['Far Future Gala']}`);
    expect(titles(res).sort()).toEqual(['Far Future Gala', 'Old Fair']);
    const arr = await api.request.get(`${ROOT}/events?include[]=${ids['Old Fair']}&start_date=2030-06-20`);
    expect(titles(arr)).toEqual(['Old Fair']);
  });
});
