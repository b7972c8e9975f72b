import { describe, expect, it } from '@jest/globals';
import { addQueryArgs, eventListArgs, phpUrlencode, tecListUrls } from '../src/domain/list-urls.js';
import { ROOT } from './helpers.js';
import { useListFixture } from './list-fixture.js';

// Issue 44 point 4: an event list's links as TEC builds them (Archive_Base::get_current_rest_url,
// get_next_rest_url, get_previous_rest_url over WordPress's add_query_arg / remove_query_arg).
const { api, ids } = useListFixture();
const base = 'http://h/wp-json/cal/events/v1/events/';

describe('add_query_arg', () => {
  it('appends new values raw, encodes the ones already there, shortens `name=`', () => {
    expect(phpUrlencode("a b:c,*~'")).toBe('a+b%3Ac%2C%2A%7E%27');
    const first = addQueryArgs(base, [
      ['page', 1],
      ['start_date', '2030-06-14 00:00:00'],
    ]);
    expect(first).toBe(`${base}?page=1&start_date=2030-06-14 00:00:00`);
    expect(addQueryArgs(first, [['venue', '3,4']])).toBe(
      `${base}?page=1&start_date=2030-06-14+00%3A00%3A00&venue=3,4`,
    );
    expect(addQueryArgs(`${base}?page=2`, [['page', undefined]])).toBe(base);
    expect(addQueryArgs(base, [['geoloc_lat', '']])).toBe(`${base}?geoloc_lat`);
  });

  it('links the next and previous pages from the current one', () => {
    const urls = tecListUrls(
      base,
      [
        ['page', 3],
        ['per_page', 2],
        ['search', 'a b'],
      ],
      [],
      { page: 3, totalPages: 4 },
    );
    expect(urls).toEqual({
      rest_url: `${base}?page=3&per_page=2&search=a b`,
      next_rest_url: `${base}?per_page=2&search=a+b&page=4`,
      previous_rest_url: `${base}?per_page=2&search=a+b&page=2`,
    });
  });

  it("orders the arguments as Archive_Event's supported_query_vars, extras after", () => {
    const { args, extra } = eventListArgs({
      page: 1,
      perPage: 10,
      dates: { starts_after: '2030-01-01 23:59:59' },
      status: 'any',
      ticketed: false,
      include: [4, 2],
      search: 'jazz',
      venue: [7],
      featured: false,
    });
    expect(args.map(([name]) => name)).toEqual([
      'page',
      'per_page',
      'search',
      'status',
      'include',
      'starts_after',
    ]);
    expect(extra).toEqual([
      ['venue', '7'],
      ['featured', undefined],
    ]);
  });
});

describe('GET /events links', () => {
  it('repeats the resolved window, statuses and filters', async () => {
    const res = await api.request
      .get(`${ROOT}/events`)
      .query({ start_date: '2030-06-20 15:00', per_page: 99 });
    expect(res.body.rest_url).toBe(
      `${res.body.rest_url.split('?')[0]}?page=1&per_page=50&start_date=2030-06-20 00:00:00&end_date=2032-06-15 23:59:59&status=publish`,
    );
    const editor = await api.by('editor').get('events?status=publish,draft&starts_after=2030-06-01');
    expect(editor.body.rest_url).toMatch(
      /\?page=1&per_page=10&status=publish,draft&starts_after=2030-06-01 23:59:59$/,
    );
    const any = await api.by('author').get('events');
    expect(any.body.rest_url).toMatch(/&status=any$/);
    // An extra (featured) goes in through a second add_query_arg, after `include`.
    const included = await api.request.get(`${ROOT}/events?include=${ids['Jazz Night']}&featured=true`);
    expect(included.status).toBe(200);
    const query = `?page=1&per_page=10&status=publish&include=${ids['Jazz Night']}&featured=1`;
    expect(included.body.rest_url.endsWith(query)).toBe(true);
  });
});
