import { writeTransaction } from '../adapters/db.js';
import {
  type EventFilter,
  type EventPage,
  findEventWithRelations,
  listEvents,
  parseEventJson,
} from '../adapters/event-query.js';
import { findEvent, updateEvent } from '../adapters/events-repo.js';
import { refreshTermCounts, termIdsOfEvent } from '../adapters/terms-repo.js';
import {
  canEdit,
  canRead,
  canWritePosts,
  forbidden,
  listedStatuses,
  type User,
  viewerOf,
} from '../domain/auth.js';
import { invalidParam, refusals } from '../domain/errors.js';
import { fragmentStore } from '../domain/fragments.js';
import { clampPerPage, dateBounds, paginate, pastEndOf } from '../domain/listing.js';
import { renderEvent, renderRelations, type Site, taxonomies } from '../domain/render.js';
import type { EventListQuery, EventWrite } from '../domain/schemas.js';
import { saveEvent } from './save-event.js';
import { renderOne, type ServiceContext } from './shared.js';

/** No event with this id (also id 0). */
export const eventNotFound = () => refusals.notFound('event');

/** No such event: 404 by id, 400 by slug (The Events Calendar validates the slug argument). */
const missing = (by: EventKey) =>
  'slug' in by ? invalidParam('slug', 'slug: no event with this slug.') : eventNotFound();

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

type EventKey = { id: number } | { slug: string };

/** Bytes of rendered list events kept by default (their source texts included). */
const RENDERED_EVENTS_BYTES = 32 * 1024 * 1024;

/** An event of a list rendered from one exact JSON text (open, or locked by its password). */
interface RenderedEvent {
  bytes: number;
  password: string;
  json: string;
}

/**
 * The event rules behind the routes: who may list, read, create, update or trash what, in
 * which transaction, answered rendered. Each route validates its parameters and makes one call.
 */
export function eventService(ctx: ServiceContext) {
  const { knex } = ctx;
  // Rendering and serializing a page costs more than the statement that reads it: an event
  // already rendered from the same text (same row, relations, counts and caller's view) on the
  // same origin is reused, whatever the list, filter or page it appears in.
  const rendered = fragmentStore<RenderedEvent>(ctx.renderedEventsBytes ?? RENDERED_EVENTS_BYTES);

  /** One event of a list as serialized JSON, locked when protected and not unlocked by `password`. */
  function listedEvent(text: string, site: Site, password: string | undefined, memo: Map<string, unknown>) {
    const key = `${site.origin}${site.restRoot}\n${text}`;
    const serialize = (locked: boolean) => {
      const { row, relations } = parseEventJson(text);
      const json = JSON.stringify(renderEvent(row, renderRelations(relations, site, memo), site, locked));
      return { bytes: json.length * 2, password: row.password, json };
    };
    let open = rendered.get(key);
    if (!open) {
      open = serialize(false);
      rendered.set(key, open);
    }
    if (open.password === '' || open.password === password) return open.json;
    const lockedKey = `locked ${key}`;
    let locked = rendered.get(lockedKey);
    if (!locked) {
      locked = serialize(true);
      rendered.set(lockedKey, locked);
    }
    return locked.json;
  }

  /** The event with its relations, in one statement, when `user` may read it. */
  async function readable(by: EventKey, user: User | undefined, password?: string) {
    const found = await findEventWithRelations(knex, by, viewerOf(user));
    if (!found) throw missing(by);
    const { row } = found;
    if (row.status === 'trash') throw refusals.noLongerAvailable('event');
    if (!canRead(user, row)) throw refusals.notAccessible('event');
    if (row.password !== '' && row.password !== password) throw refusals.passwordProtected();
    return found;
  }

  /** The stored event `by` names, when `user` may write it (`action` names the refusal). */
  async function writable(by: EventKey, user: User | undefined, action: 'edit' | 'delete') {
    if (!canWritePosts(user)) throw forbidden(user);
    const row = await findEvent(knex, by);
    if (!row) throw missing(by);
    if (action === 'delete' && row.status === 'trash') throw refusals.inTrash('event');
    if (!canEdit(user, row)) throw forbidden(user, `Sorry, you are not allowed to ${action} this event.`);
    return { row, user: user! };
  }

  return {
    /** One page of events as `user` may see them, in one SQL statement; each event as JSON text. */
    async list(user: User | undefined, query: EventListQuery, site: Site) {
      const perPage = clampPerPage(query.per_page);
      if ((query.geoloc_lat === undefined) !== (query.geoloc_lng === undefined)) {
        const absent = query.geoloc_lat === undefined ? 'geoloc_lat' : 'geoloc_lng';
        throw invalidParam(absent, 'geoloc_lat and geoloc_lng must be given together.');
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
      const events = found.events.map((text) => listedEvent(text, site, query.password, memo));
      return { events, page };
    },

    async read(user: User | undefined, by: EventKey, password: string | undefined, site: Site) {
      const { row, relations } = await readable(by, user, password);
      return renderEvent(row, renderRelations(relations, site), site);
    },

    async create(user: User | undefined, input: EventWrite, site: Site) {
      if (input.title.trim() === '') throw invalidParam('title', 'title must not be empty.');
      if (!canWritePosts(user)) throw forbidden(user);
      return writeTransaction(knex, (trx) => saveEvent(trx, ctx, user!, input, site));
    },

    async update(user: User | undefined, by: EventKey, input: Partial<EventWrite>, site: Site) {
      const { row, user: writer } = await writable(by, user, 'edit');
      return writeTransaction(knex, (trx) => saveEvent(trx, ctx, writer, input, site, row));
    },

    async trash(user: User | undefined, by: EventKey, site: Site) {
      const { row } = await writable(by, user, 'delete');
      return writeTransaction(knex, async (trx) => {
        const updated = await updateEvent(trx, row.id, { status: 'trash', modified_utc: ctx.now() });
        await refreshTermCounts(trx, await termIdsOfEvent(trx, row.id));
        return renderOne(trx, updated.id, site, user);
      });
    },
  };
}
