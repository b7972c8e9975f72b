import type { Knex } from 'knex';
import { addDays, formatWall, fromWall, toWall } from '../domain/dates.js';
import { slugify } from '../domain/slug.js';
import { refreshTermCounts } from './terms-repo.js';

/** Small deterministic PRNG (mulberry32) so that seeded data sets are reproducible. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const adjectives = [
  'Summer',
  'Winter',
  'Open',
  'Late',
  'Community',
  'Family',
  'Grand',
  'Indie',
  'Acoustic',
  'Urban',
  'Little',
  'Midnight',
];
const nouns = [
  'Jazz Night',
  'Book Club',
  'Farmers Market',
  'Yoga Class',
  'Film Screening',
  'Hackathon',
  'Wine Tasting',
  'Chess Meetup',
  'Poetry Slam',
  'Choir Rehearsal',
  'Startup Pitch',
  'Pottery Workshop',
  'Rock Concert',
  'Language Exchange',
  'Charity Run',
];
const places = ['Hall', 'Arena', 'Loft', 'Library', 'Park', 'Theatre', 'Gallery', 'Club', 'Church', 'Garden'];
const cities: [string, string, number, number][] = [
  ['Paris', 'France', 48.8566, 2.3522],
  ['Lyon', 'France', 45.764, 4.8357],
  ['Berlin', 'Germany', 52.52, 13.405],
  ['Madrid', 'Spain', 40.4168, -3.7038],
  ['Lisbon', 'Portugal', 38.7223, -9.1393],
  ['Montreal', 'Canada', 45.5017, -73.5673],
];
const categories = [
  'Music',
  'Arts',
  'Sports',
  'Food & Drink',
  'Technology',
  'Education',
  'Family',
  'Community',
  'Film',
  'Literature',
  'Wellness',
  'Business',
];
const tags = [
  'free',
  'outdoor',
  'indoor',
  'kids',
  'accessible',
  'weekend',
  'evening',
  'beginner',
  'advanced',
  'live',
  'online',
  'charity',
  'seasonal',
  'local',
  'premium',
];

export interface SeedOptions {
  timezone: string;
  now?: Date;
  seed?: number;
  /** Author id of the seeded records. */
  author?: number;
}

/**
 * Inserts `count` realistic events (spread from a month ago to two years ahead) with venues,
 * organizers, categories and tags. Bulk inserts, for benchmarks and demos.
 */
export async function seedEvents(knex: Knex, count: number, options: SeedOptions): Promise<void> {
  const rand = random(options.seed ?? 42);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const now = options.now ?? new Date();
  const author = options.author ?? 1;
  const tag = `${Date.now().toString(36)}`;

  const termIds = await knex.transaction(async (trx) => {
    const ids = { categories: [] as number[], tags: [] as number[] };
    for (const [kind, taxonomy, names] of [
      ['categories', 'cal_events_cat', categories],
      ['tags', 'post_tag', tags],
    ] as const) {
      for (const name of names) {
        const slug = slugify(name);
        const existing = await trx('cal_terms').where({ taxonomy, slug }).first('id');
        const id = existing
          ? (existing.id as number)
          : ((
              await trx('cal_terms')
                .insert({ taxonomy, name, slug, description: `${name} events` })
                .returning('id')
            )[0]!.id as number);
        ids[kind].push(id);
      }
    }
    return ids;
  });

  const published = (name: string) => ({
    author,
    status: 'publish',
    title: name,
    slug: `${slugify(name)}-${tag}`,
    date_utc: now,
    modified_utc: now,
  });
  const venues = (await knex('cal_venues')
    .insert(
      Array.from({ length: 40 }, (_, i) => {
        const [city, country, lat, lng] = cities[i % cities.length]!;
        const name = `${pick(adjectives)} ${pick(places)} ${city} ${i + 1}`;
        return {
          ...published(name),
          address: `${1 + Math.floor(rand() * 200)} Main Street`,
          city,
          country,
          geo_lat: lat + (rand() - 0.5) / 10,
          geo_lng: lng + (rand() - 0.5) / 10,
        };
      }),
    )
    .returning('id')) as { id: number }[];
  const organizers = (await knex('cal_organizers')
    .insert(
      Array.from({ length: 25 }, (_, i) => {
        const name = `${pick(adjectives)} Events ${i + 1}`;
        return {
          ...published(name),
          email: `contact${i + 1}@example.org`,
          phone: `+33 1 00 00 ${String(i).padStart(2, '0')}`,
        };
      }),
    )
    .returning('id')) as { id: number }[];

  const today = toWall(now, options.timezone);
  for (let done = 0; done < count; done += 1000) {
    const batch = Math.min(1000, count - done);
    const rows = Array.from({ length: batch }, (_, i) => {
      const n = done + i;
      const title = `${pick(adjectives)} ${pick(nouns)}`;
      const allDay = rand() < 0.05;
      const day = addDays(today, Math.floor(rand() * 750) - 30);
      const start = allDay
        ? { ...day, hour: 0, minute: 0, second: 0 }
        : { ...day, hour: 8 + Math.floor(rand() * 13), minute: pick([0, 15, 30, 45]), second: 0 };
      const end = allDay
        ? { ...day, hour: 23, minute: 59, second: 59 }
        : { ...start, hour: Math.min(23, start.hour + 1 + Math.floor(rand() * 3)) };
      const roll = rand();
      return {
        author,
        status: roll < 0.05 ? 'draft' : 'publish',
        title,
        description: `${title} with friends and neighbours. Bring your ${pick(['ideas', 'instruments', 'appetite', 'questions', 'family'])}.`,
        excerpt: '',
        slug: `${slugify(title)}-${tag}-${n}`,
        date_utc: now,
        modified_utc: now,
        all_day: allDay,
        start_local: formatWall(start),
        end_local: formatWall(end),
        start_utc: fromWall(start, options.timezone),
        end_utc: fromWall(end, options.timezone),
        timezone: options.timezone,
        cost: rand() < 0.4 ? String(5 * Math.floor(rand() * 10)) : null,
        featured: rand() < 0.1,
        hide_from_listings: rand() < 0.03,
        ticketed: rand() < 0.2,
        venue_id: rand() < 0.9 ? pick(venues).id : null,
      };
    });
    const inserted = (await knex('cal_events').insert(rows).returning('id')) as { id: number }[];
    const termLinks: { event_id: number; term_id: number }[] = [];
    const organizerLinks: { event_id: number; organizer_id: number; position: number }[] = [];
    for (const { id } of inserted) {
      const chosen = new Set<number>([pick(termIds.categories)]);
      if (rand() < 0.3) chosen.add(pick(termIds.categories));
      for (let t = Math.floor(rand() * 4); t > 0; t--) chosen.add(pick(termIds.tags));
      for (const term_id of chosen) termLinks.push({ event_id: id, term_id });
      const orgs = new Set<number>();
      for (let o = Math.floor(rand() * 3); o > 0; o--) orgs.add(pick(organizers).id);
      [...orgs].forEach((organizer_id, position) => {
        organizerLinks.push({ event_id: id, organizer_id, position });
      });
    }
    await knex('cal_event_terms').insert(termLinks);
    if (organizerLinks.length > 0) await knex('cal_event_organizers').insert(organizerLinks);
  }
  await refreshTermCounts(knex);
  // Fresh visibility map and statistics: the list counts become index-only scans.
  await knex.raw('VACUUM ANALYZE');
}
