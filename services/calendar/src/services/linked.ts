import { writeTransaction } from '../adapters/db.js';
import {
  findLinked,
  type LinkedKind,
  type LinkedRow,
  listLinked,
  updateLinked,
} from '../adapters/linked-repo.js';
import {
  canEdit,
  canRead,
  canWritePosts,
  forbidden,
  listedStatuses,
  statusOnWrite,
  type User,
} from '../domain/auth.js';
import { invalidParam, refusals } from '../domain/errors.js';
import { withJsonLd } from '../domain/json-ld.js';
import { clampPerPage, paginate, pastEndOf } from '../domain/listing.js';
import {
  type OrganizerRow,
  renderOrganizer,
  renderVenue,
  type Site,
  type VenueRow,
} from '../domain/render.js';
import type { LinkedListQuery } from '../domain/schemas.js';
import {
  checkedAuthor,
  checkRelatedEvent,
  createLinked,
  freeSlug,
  linkedColumns,
  publicationDate,
  trashMoveSlug,
  trashSlug,
} from './linking.js';
import type { ServiceContext } from './shared.js';

const render = (kind: LinkedKind, row: LinkedRow, site: Site) =>
  kind === 'venue' ? renderVenue(row as VenueRow, site) : renderOrganizer(row as OrganizerRow, site);

type LinkedKey = { id: number } | { slug: string };

/** The venue or organizer rules behind `/venues` and `/organizers`: the same over two tables. */
export function linkedService(ctx: ServiceContext, kind: LinkedKind) {
  const { knex } = ctx;
  const collection = `${kind}s`;
  /** No such record: 404 by id, 400 by slug (The Events Calendar validates the slug argument). */
  const missing = (by: LinkedKey) =>
    'slug' in by ? invalidParam('slug', `slug: no ${kind} with this slug.`) : refusals.notFound(kind, by.id);

  /** The stored record `by` names, when `user` may write it (`action` names the refusal). */
  async function writable(by: LinkedKey, user: User | undefined, action: 'edit' | 'delete') {
    if (!canWritePosts(user)) throw forbidden(user);
    const row = await findLinked(knex, kind, by);
    if (!row) throw missing(by);
    if (action === 'delete' && row.status === 'trash') throw refusals.inTrash(kind);
    if (!canEdit(user, row)) throw forbidden(user, `Sorry, you are not allowed to ${action} this ${kind}.`);
    return row;
  }

  return {
    async list(user: User | undefined, query: LinkedListQuery, site: Site) {
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
      return { items: rows.map((row) => render(kind, row, site)), page };
    },

    async read(user: User | undefined, by: LinkedKey, site: Site) {
      const row = await findLinked(knex, kind, by);
      if (!row) throw missing(by);
      if (row.status === 'trash') throw refusals.noLongerAvailable(kind);
      if (!canRead(user, row)) throw refusals.notAccessible(kind);
      return withJsonLd(render(kind, row, site), kind);
    },

    async create(user: User | undefined, input: Record<string, unknown>, site: Site) {
      if (!canWritePosts(user)) throw forbidden(user);
      const writer = { user: user!, tokens: ctx.tokens, timeZone: ctx.timezone, now: ctx.now() };
      return render(
        kind,
        await writeTransaction(knex, (trx) => createLinked(trx, kind, input, writer)),
        site,
      );
    },

    async update(user: User | undefined, by: LinkedKey, input: Record<string, unknown>, site: Site) {
      // The path slug names the record; a different body slug is ambiguous (The Events
      // Calendar would read it as the record to update), and renaming goes through the id.
      if ('slug' in by && input.slug !== undefined && input.slug !== by.slug) {
        throw invalidParam('slug', 'slug: update by id to change the slug of a record.');
      }
      if (!canWritePosts(user)) throw forbidden(user);
      const author = checkedAuthor({ user: user!, tokens: ctx.tokens }, input.author);
      const row = await writable(by, user, 'edit');
      const updated = await writeTransaction(knex, async (trx) => {
        const now = ctx.now();
        const changes = linkedColumns(kind, input, user!);
        const published = publicationDate(input as { date?: string; date_utc?: string }, ctx.timezone, now);
        if (published) changes.date_utc = published;
        if (input.status !== undefined)
          changes.status = statusOnWrite(user!, input.status as string, row.status);
        if (author !== undefined) changes.author = author;
        if (typeof input.slug === 'string' && 'id' in by) {
          changes.slug = await freeSlug(trx, `cal_${collection}`, input.slug, row.id);
        } else {
          const moved = await trashMoveSlug(
            trx,
            `cal_${collection}`,
            row,
            changes.status as string | undefined,
          );
          if (moved !== undefined) changes.slug = moved;
        }
        changes.modified_utc = now;
        return updateLinked(trx, kind, row.id, changes);
      });
      return render(kind, updated, site);
    },

    async trash(user: User | undefined, by: LinkedKey, site: Site) {
      const row = await writable(by, user, 'delete');
      const updated = await writeTransaction(knex, async (trx) =>
        updateLinked(trx, kind, row.id, {
          status: 'trash',
          slug: await trashSlug(trx, `cal_${collection}`, row),
          modified_utc: ctx.now(),
        }),
      );
      return render(kind, updated, site);
    },
  };
}
