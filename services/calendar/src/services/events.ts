import { writeTransaction } from '../adapters/db.js';
import { findEventWithRelations, parseEventJson } from '../adapters/event-json.js';
import { type EventFilter, type EventPage, listEvents } from '../adapters/event-query.js';
import { findEvent, updateEvent } from '../adapters/events-repo.js';
import { type KnownPage, ListMemo, type PageKey } from '../adapters/list-memo.js';
import { refreshTermCounts, termIdsOfEvent } from '../adapters/terms-repo.js';
import {
  canEdit,
  canRead,
  canWritePosts,
  forbidden,
  listedStatuses,
  type ReadScope,
  type User,
  type Viewer,
  viewerOf,
} from '../domain/auth.js';
import { invalidParam, refusals } from '../domain/errors.js';
import { fragmentStore } from '../domain/fragments.js';
import { withEventJsonLd } from '../domain/json-ld.js';
import { eventListUrls } from '../domain/list-urls.js';
import { clampPerPage, dateBounds, paginate, pastEndOf } from '../domain/listing.js';
import { renderEvent, renderRelations, type Site, taxonomies } from '../domain/render.js';
import type { EventListQuery, EventWrite } from '../domain/schemas.js';
import { trashSlug } from './linking.js';
import { saveEvent } from './save-event.js';
import { renderOne, type ServiceContext } from './shared.js';

/** No event with this id (also id 0). */
export const eventNotFound = (id: number) => refusals.notFound('event', id);

/** No such event: 404 by id, 400 by slug (The Events Calendar validates the slug argument). */
const missing = (by: EventKey) =>
  'slug' in by ? invalidParam('slug', 'slug: no event with this slug.') : eventNotFound(by.id);

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

/** Bytes of rendered list events kept by default. */
const RENDERED_EVENTS_BYTES = 32 * 1024 * 1024;

/** An event of a list rendered under one data generation: open, and locked when protected. */
interface RenderedEvent {
  id: number;
  bytes: number;
  password: string;
  /** The event's JSON as UTF-8, ready to splice into a page. */
  json: Buffer;
  /** Without its password (set only for a protected event). */
  lockedJson?: Buffer;
}

/** Which related records a viewer may read decides how an event renders. */
const scopeKey = (scope: ReadScope) =>
  scope.all ? 'all' : scope.author === undefined ? 'public' : `${scope.author}:${scope.hiddenStatuses}`;

/**
 * The event rules behind the routes: who may list, read, create, update or trash what, in
 * which transaction, answered rendered. Each route validates its parameters and makes one call.
 */
export function eventService(ctx: ServiceContext) {
  const { knex } = ctx;
  const bytes = ctx.renderedEventsBytes ?? RENDERED_EVENTS_BYTES;
  // Rendering and serializing a page costs more than the statement that reads its ids. As
  // WordPress primes its post cache, an event rendered under the data's current generation
  // (list-memo.ts) for the same viewer scope and origin is reused, whatever the list, filter or
  // page it appears in, and PostgreSQL then skips building its JSON; so are list totals.
  const lists = new ListMemo(bytes > 0);
  const rendered = fragmentStore<RenderedEvent>(bytes);
  const keyOf = (generation: string, scope: ReadScope, site: Site, id: number) =>
    `${generation}\n${scopeKey(scope)}\n${site.origin}${site.restRoot}\n${id}`;

  /** Renders an event of a list from its JSON text, kept under `generation` when there is one. */
  function render(
    text: string,
    generation: string | null,
    scope: ReadScope,
    site: Site,
    memo: Map<string, unknown>,
  ) {
    const { row, relations } = parseEventJson(text);
    const rendering = renderRelations(relations, site, memo);
    const json = Buffer.from(JSON.stringify(renderEvent(row, rendering, site)));
    const event: RenderedEvent = { id: row.id, bytes: json.length, password: row.password, json };
    if (row.password !== '') {
      event.lockedJson = Buffer.from(JSON.stringify(renderEvent(row, rendering, site, true)));
      event.bytes += event.lockedJson.length;
    }
    if (generation !== null) rendered.set(keyOf(generation, scope, site, row.id), event);
    return event;
  }

  /**
   * A page of events in one statement: what this process knows under the data's newest
   * generation (the total, the page's ids and which of them it has rendered) goes with it, and
   * PostgreSQL skips that when the generation is still current.
   */
  async function readPage(filter: EventFilter, viewer: Viewer, site: Site, perPage: number, offset: number) {
    const remembered = new Map<number, RenderedEvent>();
    const known = (key: PageKey): KnownPage => {
      const { generation, total, ids, exact } = lists.known(key);
      if (generation !== null) {
        for (const id of [...ids, ...(exact ?? [])]) {
          const event = rendered.get(keyOf(generation, viewer.scope, site, id));
          if (event) remembered.set(id, event);
        }
      }
      // The page is skipped only when every event of it can be spliced from what is rendered.
      const complete = exact?.every((id) => remembered.has(id)) ?? false;
      return { generation, total, skip: [...remembered.keys()], exact: complete ? exact : null };
    };
    const found = await listEvents(knex, filter, viewer, perPage, offset, known);
    lists.learn(found.key, found.generation, found.total, found.ids);
    return { found, remembered };
  }

  /** The serialized events of a page, in order, each locked when protected and not unlocked. */
  function pageEvents(
    found: EventPage,
    remembered: Map<number, RenderedEvent>,
    scope: ReadScope,
    site: Site,
    password: string | undefined,
  ) {
    const memo = new Map<string, unknown>();
    const read = new Map<number, RenderedEvent>();
    for (const text of found.events) {
      const event = render(text, found.generation, scope, site, memo);
      read.set(event.id, event);
    }
    return found.ids.map((id) => {
      // The statement skips only what `remembered` holds, and only under its generation.
      const event = read.get(id) ?? remembered.get(id);
      if (!event) throw new Error(`event ${id} of a list page was neither read nor remembered`);
      return event.password === '' || event.password === password ? event.json : event.lockedJson!;
    });
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
      const bounds = dateBounds(query, ctx.timezone, ctx.now());
      const filter: EventFilter = {
        ...statusFilter(user, query.status),
        bounds,
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
      const viewer = viewerOf(user);
      const { found, remembered } = await readPage(filter, viewer, site, perPage, offset);
      checkReferences(query, found);
      const page = paginate(query.page, perPage, found.total, pastEndOf('event'));
      const events = pageEvents(found, remembered, viewer.scope, site, query.password);
      const urls = eventListUrls(query, { perPage, bounds, mayEdit: canWritePosts(user) }, site, page);
      return { events, page, urls };
    },

    async read(user: User | undefined, by: EventKey, password: string | undefined, site: Site) {
      const { row, relations } = await readable(by, user, password);
      return withEventJsonLd(row, renderEvent(row, renderRelations(relations, site), site), site);
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
        const updated = await updateEvent(trx, row.id, {
          status: 'trash',
          slug: await trashSlug(trx, 'cal_events', row),
          modified_utc: ctx.now(),
        });
        await refreshTermCounts(trx, await termIdsOfEvent(trx, row.id));
        return renderOne(trx, updated.id, site, user);
      });
    },
  };
}
