// `pnpm bench calendar --tec`: copies the events seeded into our database into the real TEC, so
// that both sides list the same titles, dates, venues, organizers, categories and tags. A local
// install (TEC_DIR, from shared/tools/tec-setup) is reset and seeded by tec-seed.php inside
// WordPress; a remote one (TEC_URL + TEC_AUTH) by REST POSTs, about 5x slower per event here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { buildApp } from '@live-captions/calendar/embedded';

// knex is the calendar's dependency, not the bench's: its type through the app's options.
type Knex = Parameters<typeof buildApp>[0]['knex'];

export interface Tec {
  /** e.g. http://127.0.0.1:18380/wp-json/tribe/events/v1 */
  root: string;
  /** The install directory when TEC runs here (reset, PHP seeding, CPU from /proc). */
  dir?: string;
  /** `login:application-password` of an administrator, for REST seeding. */
  auth?: string;
}

interface Term {
  taxonomy: 'tribe_events_cat' | 'post_tag';
  name: string;
  slug: string;
  description: string;
}
interface Export {
  terms: Term[];
  venues: { id: number; title: string; address: string; city: string; country: string }[];
  organizers: { id: number; title: string; email: string; phone: string }[];
  events: {
    id: number;
    title: string;
    description: string;
    status: string;
    timezone: string;
    all_day: boolean;
    /** Wall times, 'YYYY-MM-DD HH:MM:SS'. */
    start: string;
    end: string;
    cost: string | null;
    featured: boolean;
    hide_from_listings: boolean;
    venue: number | null;
    organizers: number[];
    /** `taxonomy:slug`, the taxonomy named as TEC names it. */
    terms: string[];
  }[];
}

/** Where TEC is, from the environment; undefined when neither TEC_DIR nor TEC_URL is set. */
export function tecFromEnv(): Tec | undefined {
  const dir = process.env.TEC_DIR;
  if (dir) {
    const port = /^TEC_HTTP_PORT=(\d+)$/m.exec(readFileSync(join(dir, 'tec.env'), 'utf8'))?.[1] ?? '18380';
    return { root: `http://127.0.0.1:${port}/wp-json/tribe/events/v1`, dir };
  }
  const url = process.env.TEC_URL;
  if (!url) return undefined;
  return { root: `${url.replace(/\/$/, '')}/wp-json/tribe/events/v1`, auth: process.env.TEC_AUTH };
}

/** Our seeded database as TEC's creation arguments need it. */
async function exportOurs(knex: Knex): Promise<Export> {
  const terms = (await knex('cal_terms')
    .whereIn('taxonomy', ['cal_events_cat', 'post_tag'])
    .orderBy('id')
    .select('id', 'taxonomy', 'name', 'slug', 'description')) as (Omit<Term, 'taxonomy'> & {
    id: number;
    taxonomy: string;
  })[];
  const tecTaxonomy = (t: string) => (t === 'cal_events_cat' ? 'tribe_events_cat' : 'post_tag');
  const termKey = new Map(terms.map((t) => [t.id, `${tecTaxonomy(t.taxonomy)}:${t.slug}`]));
  const links = new Map<number, { terms: string[]; organizers: number[] }>();
  const linksOf = (id: number) => links.get(id) ?? links.set(id, { terms: [], organizers: [] }).get(id)!;
  for (const { event_id, term_id } of await knex('cal_event_terms').orderBy(['event_id', 'term_id'])) {
    const key = termKey.get(term_id);
    if (key) linksOf(event_id).terms.push(key);
  }
  for (const row of await knex('cal_event_organizers').orderBy(['event_id', 'position'])) {
    linksOf(row.event_id).organizers.push(row.organizer_id);
  }
  const events = await knex('cal_events')
    .orderBy('id')
    .select(
      'id',
      'title',
      'description',
      'status',
      'timezone',
      'all_day',
      'cost',
      'featured',
      'hide_from_listings',
      'venue_id',
      knex.raw(`to_char(start_local, 'YYYY-MM-DD HH24:MI:SS') AS start`),
      knex.raw(`to_char(end_local, 'YYYY-MM-DD HH24:MI:SS') AS "end"`),
    );
  return {
    terms: terms.map(({ taxonomy, name, slug, description }) => ({
      taxonomy: tecTaxonomy(taxonomy),
      name,
      slug,
      description,
    })),
    venues: await knex('cal_venues').orderBy('id').select('id', 'title', 'address', 'city', 'country'),
    organizers: await knex('cal_organizers').orderBy('id').select('id', 'title', 'email', 'phone'),
    events: events.map(({ venue_id, ...event }) => ({
      ...event,
      venue: venue_id,
      organizers: links.get(event.id)?.organizers ?? [],
      terms: links.get(event.id)?.terms ?? [],
    })),
  };
}

/**
 * Seeds TEC with our events; returns our event ids -> TEC's. TEC_DIR: reset.sh (the clean
 * snapshot of setup) first, so every run starts from the same empty calendar; unless TEC holds
 * what an earlier run seeded from the same data (the same day: the seed's dates follow the
 * clock) and CALENDAR_BENCH_TEC_RESEED is not 1.
 */
export async function seedTec(knex: Knex, tec: Tec): Promise<Map<number, number>> {
  const data = await exportOurs(knex);
  const started = Date.now();
  let ids: Record<string, number> | null;
  if (tec.dir) {
    const dir = tec.dir;
    const work = mkdtempSync(join(tmpdir(), 'tec-seed-'));
    try {
      const file = join(work, 'events.json');
      writeFileSync(file, JSON.stringify(data));
      const script = fileURLToPath(new URL('./tec-seed.php', import.meta.url));
      const php = (mode: 'check' | 'seed') => {
        const out = execFileSync(
          'php',
          ['-d', 'memory_limit=1G', join(dir, 'tools', 'wp-boot.php'), script, file, mode],
          { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 },
        );
        return (JSON.parse(out.toString()) as { events: Record<string, number> | null }).events;
      };
      ids = process.env.CALENDAR_BENCH_TEC_RESEED === '1' ? null : php('check');
      if (ids) {
        console.log(
          `TEC already holds these ${data.events.length} events (CALENDAR_BENCH_TEC_RESEED=1 reseeds)`,
        );
        return new Map(Object.entries(ids).map(([ours, theirs]) => [Number(ours), theirs]));
      }
      execFileSync(join(dir, 'reset.sh'), { stdio: ['ignore', 'ignore', 'inherit'] });
      ids = php('seed')!;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  } else {
    ids = await seedOverRest(tec, data);
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `TEC seeded with the same ${data.events.length} events, ${data.venues.length} venues, ` +
      `${data.organizers.length} organizers and ${data.terms.length} terms in ${seconds.toFixed(1)} s ` +
      `(${tec.dir ? 'tribe_create_event() in one PHP process' : 'REST POSTs'}, ` +
      `${((seconds * 1000) / data.events.length).toFixed(1)} ms/event)`,
  );
  return new Map(Object.entries(ids).map(([ours, theirs]) => [Number(ours), theirs]));
}

/** A remote TEC, which must hold no events yet: the same records through its REST API. */
async function seedOverRest(tec: Tec, data: Export): Promise<Record<string, number>> {
  if (!tec.auth) throw new Error('TEC_URL needs TEC_AUTH=login:application-password (an administrator)');
  const headers = {
    authorization: `Basic ${Buffer.from(tec.auth).toString('base64')}`,
    'content-type': 'application/json',
  };
  const post = async (path: string, body: object): Promise<number> => {
    const res = await fetch(`${tec.root}/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await res.json()) as { id?: number; message?: string };
    if (res.status !== 201 || !json.id) throw new Error(`TEC POST ${path}: ${res.status} ${json.message}`);
    return json.id;
  };
  const terms = new Map<string, number>();
  for (const { taxonomy, ...term } of data.terms) {
    const path = taxonomy === 'tribe_events_cat' ? 'categories' : 'tags';
    terms.set(`${taxonomy}:${term.slug}`, await post(path, term));
  }
  const venues = new Map<number, number>();
  for (const { id, title, ...rest } of data.venues) {
    venues.set(id, await post('venues', { venue: title, ...rest, status: 'publish' }));
  }
  const organizers = new Map<number, number>();
  for (const { id, title, ...rest } of data.organizers) {
    organizers.set(id, await post('organizers', { organizer: title, ...rest, status: 'publish' }));
  }
  const ids: Record<string, number> = {};
  // A few at a time: WordPress answers each POST in one PHP worker.
  const queue = [...data.events];
  const worker = async () => {
    for (let event = queue.shift(); event; event = queue.shift()) {
      const byTaxonomy = (t: string) => event.terms.filter((k) => k.startsWith(t)).map((k) => terms.get(k));
      ids[event.id] = await post('events', {
        title: event.title,
        description: event.description,
        status: event.status,
        timezone: event.timezone,
        all_day: event.all_day,
        start_date: event.start,
        end_date: event.end,
        featured: event.featured,
        hide_from_listings: event.hide_from_listings,
        categories: byTaxonomy('tribe_events_cat:'),
        tags: byTaxonomy('post_tag:'),
        ...(event.cost === null ? {} : { cost: event.cost }),
        ...(event.venue === null ? {} : { venue: venues.get(event.venue) }),
        ...(event.organizers.length ? { organizer: event.organizers.map((o) => organizers.get(o)) } : {}),
      });
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return ids;
}
