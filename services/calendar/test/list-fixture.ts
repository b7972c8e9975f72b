import { beforeAll } from '@jest/globals';
import { createEvent, useTestApi } from './helpers.js';

/**
 * The events the list tests read: a fixed clock and nine events around it (past, in the window,
 * hidden, draft, protected, far future), seeded once per test file on its own database.
 */
export function useListFixture() {
  // A fixed clock: the default window is 2030-06-14 00:00 .. 2032-06-15 12:00 (UTC).
  const now = new Date('2030-06-15T12:00:00Z');
  const api = useTestApi({ now: () => now });
  const ids: Record<string, number> = {};
  const titles = (res: { body: { events: { title: string }[] } }) => res.body.events.map((e) => e.title);

  async function create(body: Record<string, unknown>, who: 'admin' | 'author' | 'contributor' = 'admin') {
    const event = await createEvent(api, body, who);
    ids[body.title as string] = event.id;
    return event;
  }

  beforeAll(async () => {
    await create({ title: 'Old Fair', start_date: '2030-06-01 10:00', end_date: '2030-06-01 12:00' });
    await create({
      title: 'Jazz Night',
      start_date: '2030-06-20 20:00',
      end_date: '2030-06-20 23:00',
      description: 'Saxophones and trumpets all night',
      categories: ['Music'],
      tags: ['jazz'],
      venue: { venue: 'Blue Hall', city: 'Paris', geo_lat: 48.8566, geo_lng: 2.3522 },
      organizer: [{ organizer: 'Acme Events' }],
      featured: true,
    });
    await create({
      title: 'Rock Concert',
      start_date: '2030-06-21 19:00',
      end_date: '2030-06-21 22:00',
      categories: ['Music'],
      tags: ['rock'],
      venue: { venue: 'Red Arena', city: 'Lyon', geo_lat: 45.764, geo_lng: 4.8357 },
      ticketed: true,
    });
    await create({
      title: 'Chess Club',
      start_date: '2030-06-22 18:00',
      end_date: '2030-06-22 20:00',
      categories: ['Games'],
      post_parent: ids['Jazz Night'],
    });
    await create({
      title: 'Hidden Meetup',
      start_date: '2030-06-23 09:00',
      end_date: '2030-06-23 10:00',
      hide_from_listings: true,
    });
    await create({
      title: 'Draft Talk',
      start_date: '2030-06-24 09:00',
      end_date: '2030-06-24 10:00',
      status: 'draft',
    });
    await create({
      title: 'Secret Party',
      start_date: '2030-06-25 21:00',
      end_date: '2030-06-25 23:59',
      description: 'Only for friends',
      password: 'open-sesame',
    });
    await create({ title: 'Far Future Gala', start_date: '2033-01-01 19:00', end_date: '2033-01-01 23:00' });
    await create({ title: 'Morning Yoga', start_date: '2030-06-26 07:00', end_date: '2030-06-26 08:00' });
  });
  return { api, ids, now, titles, create };
}
