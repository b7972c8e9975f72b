import type { Request, RequestHandler } from 'express';
import { writeTransaction } from '../adapters/db.js';
import {
  findLinked,
  type LinkedKind,
  type LinkedRow,
  listLinked,
  updateLinked,
} from '../adapters/linked-repo.js';
import { canEdit, canRead, canWritePosts, forbidden, listedStatuses, statusOnWrite } from '../domain/auth.js';
import { invalidParam, refusals } from '../domain/errors.js';
import { clampPerPage, paginate, pastEndOf } from '../domain/listing.js';
import {
  type OrganizerRow,
  renderOrganizer,
  renderVenue,
  type Site,
  type VenueRow,
} from '../domain/render.js';
import { idParam, linkedListQuery, organizerWrite, slugParam, venueWrite } from '../domain/schemas.js';
import { validate } from '../domain/validate.js';
import {
  checkedAuthor,
  checkRelatedEvent,
  createLinked,
  freeSlug,
  linkedColumns,
  publicationDate,
} from '../services/linking.js';
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

const render = (kind: LinkedKind, row: LinkedRow, site: Site) =>
  kind === 'venue' ? renderVenue(row as VenueRow, site) : renderOrganizer(row as OrganizerRow, site);

/** `/venues` and `/organizers`: the same routes over two tables. */
export function linkedHandlers(ctx: AppContext, kind: LinkedKind): Handlers {
  const handlers: Handlers = {};
  const on = (operation: string, handler: RequestHandler) => {
    handlers[`${kind}s.${operation}`] = handler;
  };
  const { knex } = ctx;
  const collection = `${kind}s`;
  const schema = kind === 'venue' ? venueWrite : organizerWrite;
  const notFound = () => refusals.notFound(kind);
  /** No such record: 404 by id, 400 by slug (The Events Calendar validates the slug argument). */
  const missing = (by: { id: number } | { slug: string }) =>
    'slug' in by ? invalidParam('slug', `slug: no ${kind} with this slug.`) : notFound();

  on(
    'list',
    handle(async (req, res) => {
      const query = validate(linkedListQuery, params(req));
      const user = userOf(res);
      const site = siteOf(req, ctx);
      const perPage = clampPerPage(query.per_page);
      const listed = listedStatuses(user, query.status);
      if (!listed) throw invalidParam('status', `status: you may only list published ${collection}.`);
      if (query.event !== undefined) await checkRelatedEvent(knex, 'event', query.event, user);
      const { rows, total } = await listLinked(
        knex,
        kind,
        {
          search: query.search,
          event: query.event,
          hasEvents: query.has_events,
          onlyWithUpcoming: query.only_with_upcoming,
          statuses: listed.statuses,
          author: listed.ownAuthor,
        },
        perPage,
        (query.page - 1) * perPage,
      );
      const page = paginate(query.page, perPage, total, pastEndOf(kind));
      sendList(
        req,
        res,
        site,
        collection,
        rows.map((row) => render(kind, row, site)),
        page,
      );
    }),
  );

  on(
    'create',
    handle(async (req, res) => {
      const input = validate(schema, params(req));
      const user = userOf(res);
      if (!canWritePosts(user)) throw forbidden(user);
      const writer = { user: user!, tokens: ctx.tokens, timeZone: ctx.timezone, now: ctx.now() };
      const row = await writeTransaction(knex, (trx) => createLinked(trx, kind, input, writer));
      res.status(201).json(render(kind, row, siteOf(req, ctx)));
    }),
  );

  const by = (req: Request) =>
    keyOf(req) === 'id' ? validate(idParam, req.params) : validate(slugParam, req.params);

  on(
    'read',
    handle(async (req, res) => {
      const where = by(req);
      const row = await findLinked(knex, kind, where);
      if (!row) throw missing(where);
      if (row.status === 'trash') {
        throw refusals.noLongerAvailable(kind);
      }
      if (!canRead(userOf(res), row)) {
        throw refusals.notAccessible(kind);
      }
      res.json(render(kind, row, siteOf(req, ctx)));
    }),
  );

  on(
    'trash',
    handle(async (req, res) => {
      const where = by(req);
      const user = userOf(res);
      if (!canWritePosts(user)) throw forbidden(user);
      const row = await findLinked(knex, kind, where);
      if (!row) throw missing(where);
      if (row.status === 'trash') throw refusals.inTrash(kind);
      if (!canEdit(user, row)) throw forbidden(user, `Sorry, you are not allowed to delete this ${kind}.`);
      const trashed = await updateLinked(knex, kind, row.id, { status: 'trash', modified_utc: ctx.now() });
      res.json(render(kind, trashed, siteOf(req, ctx)));
    }),
  );

  on(
    'update',
    handle(async (req, res) => {
      const where = by(req);
      const input = validate(schema.partial(), params(req)) as Record<string, unknown>;
      // The path slug names the record; a different body slug is ambiguous (The Events
      // Calendar would read it as the record to update), and renaming goes through the id.
      if ('slug' in where && input.slug !== undefined && input.slug !== where.slug) {
        throw invalidParam('slug', 'slug: update by id to change the slug of a record.');
      }
      const user = userOf(res);
      if (!canWritePosts(user)) throw forbidden(user);
      const author = checkedAuthor({ user: user!, tokens: ctx.tokens }, input.author);
      const row = await findLinked(knex, kind, where);
      if (!row) throw missing(where);
      if (!canEdit(user, row)) throw forbidden(user, `Sorry, you are not allowed to edit this ${kind}.`);
      const updated = await writeTransaction(knex, async (trx) => {
        const now = ctx.now();
        const changes = linkedColumns(kind, input);
        const published = publicationDate(input as { date?: string; date_utc?: string }, ctx.timezone, now);
        if (published) changes.date_utc = published;
        if (input.status !== undefined)
          changes.status = statusOnWrite(user!, input.status as string, row.status);
        if (author !== undefined) changes.author = author;
        if (typeof input.slug === 'string' && 'id' in where) {
          changes.slug = await freeSlug(trx, `cal_${collection}`, input.slug, row.id);
        }
        changes.modified_utc = now;
        return updateLinked(trx, kind, row.id, changes);
      });
      res.json(render(kind, updated, siteOf(req, ctx)));
    }),
  );
  return handlers;
}
