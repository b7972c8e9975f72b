import { describe, expect, it } from '@jest/globals';
import { createEvent, ROOT, useTestApi } from './helpers.js';

// Issue 17, "Follow TEC": the shapes The Events Calendar's clients read.
const base = { start_date: '2030-07-10 18:00', end_date: '2030-07-10 20:00' };
const now = new Date('2030-06-15T12:00:00Z');
const api = useTestApi({ now: () => now });

const create = (body: Record<string, unknown>) => createEvent(api, body, 'admin', base);

describe('password-protected events in lists', () => {
  it('blank every protected field and null the booleans without the password', async () => {
    const event = await create({
      title: 'Locked Gala',
      description: 'Secret plans',
      excerpt: 'Hidden',
      cost: '25€',
      website: 'https://gala.example.org/',
      image: 'https://img.example.org/gala.png',
      featured: true,
      sticky: true,
      all_day: false,
      categories: ['Galas'],
      tags: ['black-tie'],
      venue: { venue: 'Opera House' },
      organizer: [{ organizer: 'Gala Society' }],
      password: 'pw',
    });
    const locked = (await api.request.get(`${ROOT}/events?include=${event.id}`)).body.events[0];
    expect(locked).toMatchObject({
      title: 'Locked Gala',
      description: '',
      excerpt: '',
      cost: '',
      website: '',
      image: false,
      all_day: null,
      show_map: null,
      show_map_link: null,
      hide_from_listings: null,
      sticky: null,
      featured: null,
      ticketed: null,
      categories: [],
      tags: [],
      venue: [],
      organizer: [],
    });
    expect(locked.cost_details.values).toEqual([]);
    const open = (await api.request.get(`${ROOT}/events?include=${event.id}&password=pw`)).body.events[0];
    expect(open).toMatchObject({ cost: '25€', featured: true, website: 'https://gala.example.org/' });
    expect(open.venue.venue).toBe('Opera House');
    expect(open.organizer.map((o: { organizer: string }) => o.organizer)).toEqual(['Gala Society']);
    expect(open.categories.map((c: { name: string }) => c.name)).toEqual(['Galas']);
  });
});

describe('cost and cost_details', () => {
  it.each([
    // Issue 28: as The Events Calendar 6.17.2 answers each (site currency `$`, prefix).
    ['5€', '5€', { currency_symbol: '€', currency_position: 'postfix', values: ['5'] }],
    ['$12', '$12', { currency_symbol: '$', currency_position: 'prefix', values: ['12'] }],
    ['12', '$12', { currency_symbol: '', currency_position: '', values: ['12'] }],
    ['10-20', '$10 – $20', { currency_symbol: '', currency_position: '', values: ['10', '20'] }],
    ['$10 - $20', '$10 – $20', { currency_symbol: '', currency_position: '', values: ['10', '20'] }],
    [['20', 10], '$10 – $20', { currency_symbol: '', currency_position: '', values: ['10', '20'] }],
    [
      ['0', '20', '30'],
      'Free – $30',
      { currency_symbol: '', currency_position: '', values: ['0', '20', '30'] },
    ],
    ['0', '', { currency_symbol: '', currency_position: '', values: [] }],
    ['Free', 'Free', { currency_symbol: '', currency_position: '', values: ['free'] }],
    [12.5, '$12.5', { currency_symbol: '', currency_position: '', values: ['12.5'] }],
  ])('reads %j as cost %j', async (cost, shown, details) => {
    const event = await create({ title: `Cost ${JSON.stringify(cost)}`, cost });
    expect(event.cost).toBe(shown);
    expect(event.cost_details).toEqual({ currency_code: '', ...details });
  });
});

describe('time zones', () => {
  it('accepts UTC±H[:MM] offsets and answers them as their own abbreviation', async () => {
    const plus = await create({ title: 'Offset plus', timezone: 'UTC+9' });
    expect(plus).toMatchObject({
      timezone: 'UTC+9',
      timezone_abbr: 'UTC+9',
      start_date: '2030-07-10 18:00:00',
      utc_start_date: '2030-07-10 09:00:00',
    });
    const minus = await create({ title: 'Offset minus', timezone: 'UTC-3:30' });
    expect(minus).toMatchObject({ timezone: 'UTC-3:30', utc_start_date: '2030-07-10 21:30:00' });
    const bad = await api.by('admin').post('events', { ...base, title: 'Bad offset', timezone: 'UTC+25' });
    expect(bad.status).toBe(400);
  });

  it('takes abbreviations from the tz database where one exists', async () => {
    expect((await create({ title: 'Tokyo', timezone: 'Asia/Tokyo' })).timezone_abbr).toBe('JST');
    expect((await create({ title: 'Paris', timezone: 'Europe/Paris' })).timezone_abbr).toBe('CEST');
    expect(
      (
        await create({
          title: 'Paris winter',
          timezone: 'Europe/Paris',
          start_date: '2031-01-10 10:00',
          end_date: '2031-01-10 11:00',
        })
      ).timezone_abbr,
    ).toBe('CET');
    expect((await create({ title: 'Sydney', timezone: 'Australia/Sydney' })).timezone_abbr).toBe('AEST');
  });
});

// TEC's Post_Repository::get_event_data / get_venue_data / get_organizer_data answer
// trim( apply_filters( 'the_content' ) ): wpautop's paragraphs without the last newline (issue 44).
describe('HTML paragraphs (wpautop, trimmed as TEC)', () => {
  it('answers descriptions and excerpts of events, venues and organizers as paragraphs', async () => {
    const event = await create({
      title: 'Paragraphs',
      description: 'Line one\nLine two\n\nSecond paragraph',
      excerpt: 'Short',
      venue: { venue: 'Para Hall', description: 'A hall' },
      organizer: [{ organizer: 'Para Org', description: 'An organizer' }],
    });
    expect(event.description).toBe('<p>Line one<br />\nLine two</p>\n<p>Second paragraph</p>');
    expect(event.excerpt).toBe('<p>Short</p>');
    expect(event.venue.description).toBe('<p>A hall</p>');
    expect(event.organizer[0].description).toBe('<p>An organizer</p>');
    const venue = await api.request.get(`${ROOT}/venues/${event.venue.id}`);
    expect(venue.body.description).toBe('<p>A hall</p>');
    const organizer = await api.request.get(`${ROOT}/organizers/${event.organizer[0].id}`);
    expect(organizer.body.description).toBe('<p>An organizer</p>');
    const listed = await api.request.get(`${ROOT}/events`).query({ include: String(event.id) });
    expect(listed.body.events[0]).toMatchObject({
      description: '<p>Line one<br />\nLine two</p>\n<p>Second paragraph</p>',
      excerpt: '<p>Short</p>',
      venue: { description: '<p>A hall</p>' },
      organizer: [{ description: '<p>An organizer</p>' }],
    });
    const html = await create({ title: 'Already HTML', description: '<ul><li>one</li></ul>' });
    expect(html.description).toBe('<ul><li>one</li></ul>');
  });
});

describe('event shape', () => {
  it('defaults the map flags to false, carries custom_fields and terms in TEC order', async () => {
    const event = await create({ title: 'Shape', categories: ['Shapes'], tags: ['round'] });
    expect(event).toMatchObject({ show_map: false, show_map_link: false, custom_fields: [] });
    // Issue 28: the WP_Term fields The Events Calendar 6.17.2 answers inside an event.
    const order = ['name', 'slug', 'term_group', 'term_taxonomy_id', 'taxonomy', 'description'];
    const tail = ['parent', 'count', 'filter', 'id', 'urls'];
    expect(Object.keys(event.categories[0])).toEqual([...order, ...tail]);
    // Inside an event tags carry a parent too; on /tags they do not.
    expect(Object.keys(event.tags[0])).toEqual([...order, ...tail]);
    const tag = await api.request.get(`${ROOT}/tags/${event.tags[0].id}`);
    expect(Object.keys(tag.body)).not.toContain('parent');
  });
});
