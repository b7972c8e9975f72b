import type { Knex } from 'knex';
import { writeTransaction } from '../adapters/db.js';
import {
  type EventFilter,
  type EventPage,
  findEventWithRelations,
  listEvents,
} from '../adapters/event-query.js';
import { existingEventIds, findEvent, insertEvent, updateEvent } from '../adapters/events-repo.js';
import { setEventOrganizers } from '../adapters/linked-repo.js';
import { refreshTermCounts, setEventTerms, termIdsOfEvent } from '../adapters/terms-repo.js';
import {
  canEdit,
  canRead,
  canWritePosts,
  forbidden,
  listedStatuses,
  statusOnWrite,
  type User,
  viewerOf,
} from '../domain/auth.js';
import {
  endOfDay,
  formatWall,
  fromWall,
  isTimezone,
  parseDate,
  parseWall,
  startOfDay,
  toWall,
  wallOf,
} from '../domain/dates.js';
import { invalidParam, refusals } from '../domain/errors.js';
import { clampPerPage, dateBounds, paginate, pastEndOf } from '../domain/listing.js';
import { type EventRow, renderEvent, renderRelations, type Site, taxonomies } from '../domain/render.js';
import {
  type EventListQuery,
  type EventWrite,
  eventListQuery,
  eventWrite,
  idParam,
  passwordQuery,
  slugParam,
} from '../domain/schemas.js';
import { validate } from '../domain/validate.js';
import {
  type AppContext,
  type Handlers,
  handle,
  keyOf,
  params,
  sendList,
  siteOf,
  userOf,
} from './context.js';
import {
  checkedAuthor,
  freeSlug,
  publicationDate,
  resolveLinks,
  resolveTermRefs,
  type Writer,
} from './linking.js';

const notFound = () => refusals.notFound('event');

/** No such event: 404 by id, 400 by slug (The Events Calendar validates the slug argument). */
const missing = (by: { id: number } | { slug: string }) =>
  'slug' in by ? invalidParam('slug', 'slug: no event with this slug.') : notFound();

/** The event `id` rendered with its relations as `user` may see them. */
async function renderOne(knex: Knex, id: number, site: Site, user: User | undefined) {
  const found = await findEventWithRelations(knex, { id }, viewerOf(user));
  return renderEvent(found!.row, renderRelations(found!.relations, site), site);
}

/** Filter references the list statement did not find: 400, as The Events Calendar. */
function checkReferences(query: EventListQuery, found: EventPage) {
  for (const kind of ['categories', 'tags'] as const) {
    const taxonomy = taxonomies[kind];
    const missing = (query[kind] ?? []).filter(
      (ref) => !found.terms.some((t) => t.taxonomy === taxonomy && (t.id === ref || t.slug === ref)),
    );
    if (missing.length > 0) throw invalidParam(kind, `${kind}: unknown term ${missing.join(', ')}.`);
  }
  for (const [kind, ids] of [
    ['venue', found.venueIds],
    ['organizer', found.organizerIds],
  ] as const) {
    const missing = (query[kind] ?? []).filter((id) => !ids.includes(id));
    if (missing.length > 0) throw invalidParam(kind, `${kind}: no ${kind} with ID ${missing.join(', ')}.`);
  }
  if (!found.parentExists) {
    throw invalidParam('post_parent', `post_parent: no event with ID ${query.post_parent}.`);
  }
}

function statusFilter(
  user: User | undefined,
  asked: string[] | undefined,
): Pick<EventFilter, 'statuses' | 'ownAuthor'> {
  const listed = listedStatuses(user, asked);
  if (!listed) throw invalidParam('status', 'status: you may only list published events.');
  return listed;
}

/** The handlers of the event routes, by operation of the route table. */
export function eventHandlers(ctx: AppContext): Handlers {
  const { knex } = ctx;

  const list = handle(async (req, res) => {
    const query = validate(eventListQuery, params(req));
    const user = userOf(res);
    const site = siteOf(req, ctx);
    const perPage = clampPerPage(query.per_page);
    if ((query.geoloc_lat === undefined) !== (query.geoloc_lng === undefined)) {
      const missing = query.geoloc_lat === undefined ? 'geoloc_lat' : 'geoloc_lng';
      throw invalidParam(missing, 'geoloc_lat and geoloc_lng must be given together.');
    }
    const filter: EventFilter = {
      ...statusFilter(user, query.status),
      bounds: dateBounds(query, ctx.timezone, ctx.now()),
      search: query.search,
      featured: query.featured,
      ticketed: query.ticketed,
      geoloc: query.geoloc,
      include: query.include,
      categories: query.categories,
      tags: query.tags,
      venueIds: query.venue,
      organizerIds: query.organizer,
      postParent: query.post_parent,
    };
    if (query.geoloc_lat !== undefined && query.geoloc_lng !== undefined) {
      filter.near = { lat: query.geoloc_lat, lng: query.geoloc_lng, radiusKm: query.geoloc_radius };
    }
    const offset = (query.page - 1) * perPage;
    // One statement answers the page, its relations, the total and which references exist.
    const found = await listEvents(knex, filter, viewerOf(user), perPage, offset);
    checkReferences(query, found);
    const page = paginate(query.page, perPage, found.total, pastEndOf('event'));
    const memo = new Map<string, unknown>();
    const events = found.events.map(({ row, relations }) =>
      renderEvent(
        row,
        renderRelations(relations, site, memo),
        site,
        row.password !== '' && row.password !== query.password,
      ),
    );
    sendList(req, res, site, 'events', events, page);
  });

  /** The event with its relations, in one statement, when `user` may read it. */
  async function readable(by: { id: number } | { slug: string }, user: User | undefined, password?: string) {
    const found = await findEventWithRelations(knex, by, viewerOf(user));
    if (!found) throw missing(by);
    const { row } = found;
    if (row.status === 'trash') {
      throw refusals.noLongerAvailable('event');
    }
    if (!canRead(user, row)) throw refusals.notAccessible('event');
    if (row.password !== '' && row.password !== password) {
      throw refusals.passwordProtected();
    }
    return found;
  }

  const byKey = (req: { params: Record<string, unknown> }, key: 'id' | 'slug') => {
    // Id 0 names no event (The Events Calendar: 404), rather than a malformed id (400).
    if (key === 'id' && /^0+$/.test(String(req.params.id))) throw notFound();
    return key === 'id' ? validate(idParam, req.params) : validate(slugParam, req.params);
  };

  const read = handle(async (req, res) => {
    const by = byKey(req, keyOf(req));
    const { password } = validate(passwordQuery, params(req));
    const { row, relations } = await readable(by, userOf(res), password);
    const site = siteOf(req, ctx);
    res.json(renderEvent(row, renderRelations(relations, site), site));
  });

  const trash = handle(async (req, res) => {
    const by = byKey(req, keyOf(req));
    validate(passwordQuery, params(req));
    const user = userOf(res);
    if (!canWritePosts(user)) throw forbidden(user);
    const row = await findEvent(knex, by);
    if (!row) throw missing(by);
    if (row.status === 'trash') throw refusals.inTrash('event');
    if (!canEdit(user, row)) throw forbidden(user, 'Sorry, you are not allowed to delete this event.');
    const trashed = await writeTransaction(knex, async (trx) => {
      const updated = await updateEvent(trx, row.id, { status: 'trash', modified_utc: ctx.now() });
      await refreshTermCounts(trx, await termIdsOfEvent(trx, row.id));
      return renderOne(trx, updated.id, siteOf(req, ctx), user);
    });
    res.json(trashed);
  });

  const update = handle(async (req, res) => {
    const by = byKey(req, keyOf(req));
    const input = validate(eventWrite.partial(), params(req));
    const user = userOf(res);
    if (!canWritePosts(user)) throw forbidden(user);
    const row = await findEvent(knex, by);
    if (!row) throw missing(by);
    if (!canEdit(user!, row)) throw forbidden(user, 'Sorry, you are not allowed to edit this event.');
    const updated = await writeTransaction(knex, (trx) =>
      saveEvent(trx, ctx, user!, input, siteOf(req, ctx), row),
    );
    res.json(updated);
  });

  const create = handle(async (req, res) => {
    const input = validate(eventWrite, params(req));
    if (input.title.trim() === '') throw invalidParam('title', 'title must not be empty.');
    const user = userOf(res);
    if (!canWritePosts(user)) throw forbidden(user);
    const created = await writeTransaction(knex, (trx) =>
      saveEvent(trx, ctx, user!, input, siteOf(req, ctx)),
    );
    res.status(201).json(created);
  });

  return {
    'events.list': list,
    'events.create': create,
    'events.read': read,
    'events.trash': trash,
    'events.update': update,
  };
}

const isUrl = (value: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** Creates (no `current`) or partially updates an event, then answers it rendered. */
async function saveEvent(
  trx: Knex.Transaction,
  ctx: AppContext,
  user: User,
  input: Partial<EventWrite>,
  site: Site,
  current?: EventRow,
) {
  const now = ctx.now();
  const columns: Record<string, unknown> = {};
  const timezone = input.timezone ?? current?.timezone ?? ctx.timezone;
  if (!isTimezone(timezone)) throw invalidParam('timezone', 'timezone is not a valid timezone.');
  if (input.timezone !== undefined) columns.timezone = input.timezone;
  else if (!current) columns.timezone = timezone;

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

  if (input.website !== undefined && input.website !== null && input.website !== '') {
    if (typeof input.website !== 'string' || !isUrl(input.website)) {
      throw invalidParam('website', 'website must be a valid URL.');
    }
  }
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
  for (const name of [
    'show_map',
    'show_map_link',
    'hide_from_listings',
    'sticky',
    'featured',
    'ticketed',
  ] as const) {
    if (input[name] !== undefined) columns[name] = input[name];
  }
  if (input.image !== undefined) columns.image = input.image === '' ? null : String(input.image);
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
  if (input.venue !== undefined) {
    const ids = await resolveLinks(trx, 'venue', input.venue, writer);
    columns.venue_id = ids[0] ?? null;
  }
  const organizers =
    input.organizer !== undefined ? await resolveLinks(trx, 'organizer', input.organizer, writer) : undefined;
  const termIds: Partial<Record<'categories' | 'tags', number[]>> = {};
  for (const kind of ['categories', 'tags'] as const) {
    const refs = input[kind];
    if (refs !== undefined) termIds[kind] = await resolveTermRefs(trx, taxonomies[kind], kind, refs);
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
