import { describe, expect, it } from '@jest/globals';
import { fragmentStore } from '../src/domain/fragments.js';
import { createEvent, ROOT, useTestApi } from './helpers.js';

// Lists reuse events rendered under the data's current generation and skip the count when a page
// ends the matches (issue 17, "Speed without the cache"): neither may ever show something stale or wrong.
const now = new Date('2030-06-15T12:00:00Z');
const api = useTestApi({ now: () => now });
const base = { start_date: '2030-07-10 18:00', end_date: '2030-07-10 20:00' };
const create = (body: Record<string, unknown>) => createEvent(api, body, 'admin', base);
const listed = async (query: string) => (await api.request.get(`${ROOT}/events?${query}`)).body;

describe('rendered events reused across lists', () => {
  it('shows a venue renamed, a term count changed and a new password at once, GET cache off', async () => {
    const event = await create({ title: 'Reused', categories: ['Reuse'], venue: { venue: 'Old Hall' } });
    const first = (await listed(`include=${event.id}`)).events[0];
    expect(first.venue.venue).toBe('Old Hall');
    expect(first.categories[0].count).toBe(1);
    // The event row itself does not change: only what it embeds does.
    const renamed = await api.by('admin').post(`venues/${first.venue.id}`, { venue: 'New Hall' });
    expect(renamed.status).toBe(200);
    await create({ title: 'Sibling', categories: ['Reuse'] });
    const second = (await listed(`include=${event.id}`)).events[0];
    expect(second.venue.venue).toBe('New Hall');
    expect(second.categories[0].count).toBe(2);

    await api.by('admin').post(`events/${event.id}`, { password: 'pw' });
    const locked = (await listed(`include=${event.id}`)).events[0];
    expect(locked).toMatchObject({ venue: [], categories: [], featured: null });
    const open = (await listed(`include=${event.id}&password=pw`)).events[0];
    expect(open.venue.venue).toBe('New Hall');
    expect((await listed(`include=${event.id}`)).events[0]).toEqual(locked);
  });

  it('builds absolute URLs from the Host of each request, not of the one that rendered first', async () => {
    const event = await create({ title: 'Two hosts listed' });
    const a = await api.request.get(`${ROOT}/events?include=${event.id}`).set('Host', 'a.example');
    const b = await api.request.get(`${ROOT}/events?include=${event.id}`).set('Host', 'b.example');
    expect(a.body.events[0].rest_url).toBe(`http://a.example${ROOT}/events/${event.id}`);
    expect(b.body.events[0].rest_url).toBe(`http://b.example${ROOT}/events/${event.id}`);
  });
});

describe('exact totals without counting', () => {
  it('gives the same total from a full page (counted) and from the last, partial one', async () => {
    for (let i = 0; i < 5; i++) await create({ title: `Paged ${i}`, tags: ['paged'] });
    const pages = [1, 2, 3].map((page) => listed(`tags=paged&per_page=2&page=${page}`));
    const [one, two, three] = await Promise.all(pages);
    expect([one.total, two.total, three.total]).toEqual([5, 5, 5]);
    expect([one.total_pages, three.total_pages]).toEqual([3, 3]);
    expect(three.events).toHaveLength(1);
    expect((await listed('tags=paged&per_page=10')).total).toBe(5);
    const past = await api.request.get(`${ROOT}/events?tags=paged&per_page=2&page=4`);
    expect([past.status, past.body.code]).toEqual([404, 'event-archive-page-not-found']);
  });
});

describe('fragment store', () => {
  const value = (bytes: number) => ({ bytes });

  it('keeps entries within its byte budget, least recently used out first', () => {
    // Each entry costs its key (2 bytes a character), its value's bytes and 64.
    const store = fragmentStore<{ bytes: number }>(3 * (2 + 100 + 64));
    for (const key of ['a', 'b', 'c']) store.set(key, value(100));
    expect(store.get('a')).toBeDefined();
    store.set('d', value(100));
    expect(store.get('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((key) => store.get(key) !== undefined)).toEqual([true, true, true]);
    expect(store.stats()).toEqual({ entries: 3, bytes: 3 * 166 });
    store.set('e', value(10_000));
    expect(store.get('e')).toBeUndefined();
    expect(store.stats().entries).toBe(3);
  });

  it('stores nothing with a budget of 0', () => {
    const store = fragmentStore<{ bytes: number }>(0);
    store.set('a', value(0));
    expect(store.get('a')).toBeUndefined();
  });
});
