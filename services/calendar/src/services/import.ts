import type { Knex } from 'knex';
import { writeTransaction } from '../adapters/db.js';
import { type FeedFetchRule, fetchFeed } from '../adapters/fetch-feed.js';
import { insertMany, slugsTaken, storedImports, updateRow, venuesNamed } from '../adapters/import-repo.js';
import { forbidden, isEditor, type User } from '../domain/auth.js';
import { formatWall, fromWall, siteZoneLabel } from '../domain/dates.js';
import { ApiError } from '../domain/errors.js';
import { parseFrabJson, parseFrabXml } from '../domain/import/frab.js';
import { parseIcal } from '../domain/import/ical.js';
import {
  defaultParseOptions,
  type ImportedEvent,
  type ImportedSchedule,
  ImportFileError,
  type ImportFormat,
} from '../domain/import/model.js';
import { type PlannedEvent, planImport } from '../domain/import/plan.js';
import { checkUrl, filterHtml } from '../domain/safe-fields.js';
import { slugify, uniqueSlug } from '../domain/slug.js';
import type { ServiceContext } from './shared.js';

export interface ImportRequest {
  format: ImportFormat;
  content?: string;
  url?: string;
  /** Names the feed; a later import of the same source updates its events. */
  source?: string;
  dryRun: boolean;
}

export interface ImportContext extends ServiceContext {
  fetchRule: FeedFetchRule;
  /** Days ahead recurring events are expanded to. */
  horizonDays: number;
}

const parsers: Record<ImportFormat, typeof parseIcal> = {
  ical: parseIcal,
  'frab-json': parseFrabJson,
  'frab-xml': parseFrabXml,
};

/** Feed text is someone else's: filtered as an author's writes are, whoever imports it. */
function cleaned(event: ImportedEvent): ImportedEvent {
  const html = filterHtml(
    'event',
    { title: event.title, description: event.description, excerpt: event.excerpt },
    undefined,
  );
  const venue = event.venue ? filterHtml('venue', { venue: event.venue }, undefined).venue.trim() : undefined;
  let website = event.website;
  try {
    checkUrl('website', website);
  } catch {
    website = undefined;
  }
  return { ...event, ...html, venue: venue || undefined, website, timezone: siteZoneLabel(event.timezone) };
}

const fileError = (error: ImportFileError) =>
  new ApiError(400, 'rest_import_invalid_file', `The file cannot be imported: ${error.message}`, {
    ...error.location,
  });

/**
 * Imports a schedule (iCalendar, frab/pretalx JSON or XML) in one transaction: a bad file or a
 * failure half-way changes nothing. Events are keyed by source and feed key; a dry run answers
 * the same plan without writing. Only editors import: an import updates and cancels events
 * whoever created them.
 */
export function importService(ctx: ImportContext) {
  async function read(request: ImportRequest): Promise<ImportedSchedule> {
    const content = request.content ?? (await fetchFeed(request.url!, ctx.fetchRule));
    if (Buffer.byteLength(content) > ctx.fetchRule.maxBytes) {
      throw new ApiError(
        413,
        'rest_import_too_large',
        `The file is larger than ${ctx.fetchRule.maxBytes} bytes.`,
      );
    }
    const options = { ...defaultParseOptions(ctx.timezone, ctx.now()), horizonDays: ctx.horizonDays };
    try {
      return parsers[request.format](content, options);
    } catch (error) {
      if (error instanceof ImportFileError) throw fileError(error);
      throw error;
    }
  }

  async function run(user: User | undefined, request: ImportRequest) {
    if (!user || !isEditor(user)) throw forbidden(user, 'Sorry, only editors may import schedules.');
    const schedule = await read(request);
    const source = request.source ?? request.url ?? `${request.format}:${schedule.name ?? 'upload'}`;
    const events = schedule.events.map(cleaned);
    const now = ctx.now();
    const keepBefore = new Date(now.getTime() - defaultParseOptions(ctx.timezone, now).pastDays * 86_400_000);
    return writeTransaction(ctx.knex, async (trx) => {
      // Two imports of one source at once would both plan the same creates.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`cal_import:${source}`]);
      const plan = planImport(events, await storedImports(trx, source), keepBefore);
      // Venues of what the feed lists (a new event it already cancels is not created, nor its room).
      const written = plan.filter((p) => p.event?.venue && p.action !== 'skip');
      // One venue per name in any letter case, named as the feed first spells it.
      const names = firstSpellings(written.map((p) => p.event!.venue!));
      const venues = await venuesNamed(trx, names);
      const newVenues = names.filter((n) => !venues.has(n.toLowerCase()));
      if (!request.dryRun) {
        await createVenues(trx, user, newVenues, venues, now);
        await apply(trx, user, source, plan, venues, now);
      }
      return answer(source, request, plan, names, venues, newVenues);
    });
  }

  return { run };
}

function firstSpellings(names: string[]): string[] {
  const seen = new Map<string, string>();
  for (const name of names) if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  return [...seen.values()];
}

async function lockSlugs(trx: Knex, table: string, bases: string[]) {
  // The same name locks as single writes take (freeSlug), in one statement and a fixed order.
  await trx.raw('SELECT pg_advisory_xact_lock(hashtext(k)) FROM unnest(?::text[]) k ORDER BY k', [
    [...new Set(bases)].map((base) => `${table}:${base}`),
  ]);
  return slugsTaken(trx, table, [...new Set(bases.map((b) => b || 'untitled'))]);
}

async function createVenues(trx: Knex, user: User, names: string[], venues: Map<string, number>, now: Date) {
  const bases = names.map(slugify);
  const taken = await lockSlugs(trx, 'cal_venues', bases);
  const rows = names.map((name, i) => {
    const slug = uniqueSlug(bases[i]!, taken);
    taken.add(slug);
    return { author: user.id, status: 'publish', title: name, slug, date_utc: now, modified_utc: now };
  });
  const ids = await insertMany(trx, 'cal_venues', rows);
  for (const [i, name] of names.entries()) venues.set(name.toLowerCase(), ids[i]!);
}

/** The columns an import writes for `event`. */
function columnsOf(event: ImportedEvent, venues: Map<string, number>, now: Date) {
  const zone = event.timezone;
  return {
    title: event.title,
    description: event.description,
    excerpt: event.excerpt,
    timezone: zone,
    all_day: event.allDay,
    start_local: formatWall(event.start),
    end_local: formatWall(event.end),
    start_utc: fromWall(event.start, zone),
    end_utc: fromWall(event.end, zone),
    venue_id: event.venue ? (venues.get(event.venue.toLowerCase()) ?? null) : null,
    website: event.website ?? null,
    import_sequence: event.sequence,
    event_status: event.cancelled ? 'cancelled' : 'scheduled',
    modified_utc: now,
  };
}

async function apply(
  trx: Knex,
  user: User,
  source: string,
  plan: PlannedEvent[],
  venues: Map<string, number>,
  now: Date,
) {
  const creates = plan.filter((p) => p.action === 'create');
  const bases = creates.map((p) => slugify(p.event!.title));
  const taken = await lockSlugs(trx, 'cal_events', bases);
  const rows = creates.map((p, i) => {
    const slug = uniqueSlug(bases[i]!, taken);
    taken.add(slug);
    return {
      ...columnsOf(p.event!, venues, now),
      author: user.id,
      status: 'publish',
      slug,
      date_utc: now,
      import_source: source,
      import_key: p.key,
    };
  });
  const ids = await insertMany(trx, 'cal_events', rows);
  creates.forEach((p, i) => {
    p.id = ids[i];
  });
  for (const p of plan) {
    if (p.action !== 'update' && p.action !== 'cancel') continue;
    // A cancel the feed says carries the feed's fields too; one by absence only changes the status.
    const changes = p.event
      ? columnsOf(p.event, venues, now)
      : { event_status: 'cancelled', modified_utc: now };
    await updateRow(trx, 'cal_events', p.id!, changes);
  }
}

function answer(
  source: string,
  request: ImportRequest,
  plan: PlannedEvent[],
  names: string[],
  venues: Map<string, number>,
  created: string[],
) {
  const count = (action: string) => plan.filter((p) => p.action === action).length;
  const isNew = new Set(created.map((n) => n.toLowerCase()));
  return {
    source,
    format: request.format,
    dry_run: request.dryRun,
    summary: {
      events: {
        create: count('create'),
        update: count('update'),
        cancel: count('cancel'),
        unchanged: count('unchanged'),
        skip: count('skip'),
      },
      venues: { create: created.length, existing: names.length - created.length },
    },
    events: plan.map(({ event: _event, ...rest }) => rest),
    venues: names.map((name) => ({
      name,
      action: isNew.has(name.toLowerCase()) ? 'create' : 'existing',
      id: venues.get(name.toLowerCase()) ?? null,
    })),
  };
}
