import type { Knex } from 'knex';
import { existingEventIds, insertEvent, updateEvent } from '../adapters/events-repo.js';
import { setEventOrganizers } from '../adapters/linked-repo.js';
import { refreshTermCounts, setEventTerms, termIdsOfEvent } from '../adapters/terms-repo.js';
import { statusOnWrite, type User } from '../domain/auth.js';
import { parseDate, wallOf } from '../domain/date-parse.js';
import {
  endOfDay,
  formatWall,
  fromWall,
  isTimezone,
  parseWall,
  siteZoneLabel,
  startOfDay,
  toWall,
} from '../domain/dates.js';
import { invalidParam } from '../domain/errors.js';
import { type EventRow, type Site, taxonomies } from '../domain/render.js';
import { checkImage, checkUrl, filterHtml } from '../domain/safe-fields.js';
import { type EventWrite, eventFlags } from '../domain/schemas.js';
import {
  checkedAuthor,
  freeSlug,
  publicationDate,
  resolveLinks,
  resolveTermRefs,
  trashMoveSlug,
  type Writer,
} from './linking.js';
import { renderOne, type ServiceContext } from './shared.js';

/** Creates (no `current`) or partially updates an event, then answers it rendered. */
export async function saveEvent(
  trx: Knex.Transaction,
  ctx: ServiceContext,
  user: User,
  sent: Partial<EventWrite>,
  site: Site,
  current?: EventRow,
) {
  const input = filterHtml('event', sent, user);
  const now = ctx.now();
  const columns: Record<string, unknown> = {};
  const timezone = input.timezone ?? current?.timezone ?? ctx.timezone;
  if (!isTimezone(timezone)) throw invalidParam('timezone', 'timezone is not a valid timezone.');
  if (input.timezone !== undefined) columns.timezone = input.timezone;
  else if (!current) columns.timezone = siteZoneLabel(timezone);

  // Dates: read in the event's timezone; all-day events span whole days; end never before start.
  const readDate = (name: 'start_date' | 'end_date') => {
    const value = input[name];
    if (value === undefined) return undefined;
    const parsed = parseDate(value, timezone, now);
    if (!parsed) throw invalidParam(name, `${name} is not a valid date.`);
    return wallOf(parsed, timezone);
  };
  let start = readDate('start_date') ?? (current ? parseWall(current.start_local) : undefined);
  let end = readDate('end_date') ?? (current ? parseWall(current.end_local) : undefined);
  const allDay = input.all_day ?? current?.all_day ?? false;
  if (start && end) {
    if (allDay) {
      start = startOfDay(start);
      end = endOfDay(end);
    }
    const startAt = fromWall(start, timezone);
    let endAt = fromWall(end, timezone);
    // A wall time the zone skips (a midnight some DST changes jump over) is stored as the
    // wall time the instant really shows, so local and UTC columns always agree.
    start = toWall(startAt, timezone);
    end = toWall(endAt, timezone);
    if (endAt < startAt) {
      end = start;
      endAt = startAt;
    }
    Object.assign(columns, {
      start_local: formatWall(start),
      end_local: formatWall(end),
      start_utc: startAt,
      end_utc: endAt,
      all_day: allDay,
    });
  }

  checkUrl('website', input.website);
  checkImage('image', input.image);
  const writer: Writer = { user, tokens: ctx.tokens, timeZone: ctx.timezone, now };
  const author = checkedAuthor(writer, input.author);
  if (author !== undefined) columns.author = author;
  if (input.post_parent !== undefined) {
    if (
      (await existingEventIds(trx, [input.post_parent])).length === 0 ||
      input.post_parent === current?.id
    ) {
      throw invalidParam('post_parent', `post_parent: no event with ID ${input.post_parent}.`);
    }
    columns.post_parent = input.post_parent;
  }
  const published = publicationDate(input, ctx.timezone, now);
  if (published) columns.date_utc = published;

  for (const name of ['title', 'description', 'excerpt', 'password'] as const) {
    if (input[name] !== undefined) columns[name] = input[name];
  }
  for (const name of eventFlags) {
    if (input[name] !== undefined) columns[name] = input[name];
  }
  if (input.image !== undefined) columns.image = input.image === '' ? null : String(input.image);
  // Stored as the checked object serialises, in the documented key order; null clears it.
  if (input.captions !== undefined)
    columns.captions = input.captions === null ? null : JSON.stringify(input.captions);
  if (input.cost !== undefined) columns.cost = input.cost;
  if (input.website !== undefined)
    columns.website = input.website === '' || input.website === null ? null : String(input.website);
  if (input.status !== undefined || !current)
    columns.status = statusOnWrite(user, input.status, current?.status);
  if (input.slug !== undefined || !current) {
    columns.slug = await freeSlug(
      trx,
      'cal_events',
      input.slug || input.title || current?.title || 'event',
      current?.id,
    );
  }
  const slug = await trashMoveSlug(trx, 'cal_events', current, columns.status as string | undefined);
  if (slug !== undefined && input.slug === undefined) columns.slug = slug;
  if (input.venue !== undefined) {
    const ids = await resolveLinks(trx, 'venue', input.venue, writer);
    columns.venue_id = ids[0] ?? null;
  }
  const organizers =
    input.organizer !== undefined ? await resolveLinks(trx, 'organizer', input.organizer, writer) : undefined;
  const termIds: Partial<Record<'categories' | 'tags', number[]>> = {};
  for (const kind of ['categories', 'tags'] as const) {
    const refs = input[kind];
    if (refs === undefined) continue;
    // A term created by name gets the name filtered as the term routes filter it.
    const names = refs
      .map((ref) => (typeof ref === 'string' ? filterHtml('term', { name: ref }, user).name.trim() : ref))
      .filter((ref) => ref !== '');
    termIds[kind] = await resolveTermRefs(trx, taxonomies[kind], kind, names);
  }

  columns.modified_utc = now;
  let row: EventRow;
  const before = current ? await termIdsOfEvent(trx, current.id) : [];
  if (current) {
    row = await updateEvent(trx, current.id, columns);
  } else {
    row = await insertEvent(trx, { author: user.id, date_utc: now, ...columns });
  }
  if (organizers) await setEventOrganizers(trx, row.id, organizers);
  for (const kind of ['categories', 'tags'] as const) {
    const ids = termIds[kind];
    if (ids) await setEventTerms(trx, row.id, taxonomies[kind], ids);
  }
  await refreshTermCounts(trx, [...new Set([...before, ...(await termIdsOfEvent(trx, row.id))])]);
  return renderOne(trx, row.id, site, user);
}
