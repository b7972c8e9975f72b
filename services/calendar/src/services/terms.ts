import type { Knex } from 'knex';
import { lockName, writeTransaction } from '../adapters/db.js';
import {
  ancestorIds,
  categoryPaths,
  deleteTerm,
  findTerm,
  findTermByName,
  insertTerm,
  listTerms,
  missingTermIds,
  slugTaken,
  updateTerm,
} from '../adapters/terms-repo.js';
import { canManageTerms, forbidden, type User } from '../domain/auth.js';
import { invalidParam, refusals } from '../domain/errors.js';
import { clampPerPage, paginate } from '../domain/listing.js';
import { renderTerm, type Site, type TermKind, type TermRow, taxonomies } from '../domain/render.js';
import { filterHtml } from '../domain/safe-fields.js';
import type { TermListQuery, TermWrite } from '../domain/schemas.js';
import { slugify } from '../domain/slug.js';
import { checkRelatedEvent } from './linking.js';
import type { ServiceContext } from './shared.js';

/**
 * The rules of `/categories` and `/tags` (WordPress terms of the two event taxonomies). Writes
 * run in a transaction, retried when a concurrent write took the name or slug first: the retry
 * then answers `term_exists` / `duplicate_term_slug` instead of a unique-index error.
 */
export function termService(ctx: ServiceContext, kind: TermKind) {
  const { knex } = ctx;
  const taxonomy = taxonomies[kind];

  /**
   * Every write of a term, delete included, under TEC's mapping (canManageTerms). Refused with
   * WordPress's words for a permission_callback that says no (WP_REST_Server::respond_to_request).
   */
  const mayWrite = (user: User | undefined) => {
    if (!canManageTerms(user, kind)) throw forbidden(user);
  };

  /** A term as the routes answer it, a category's URL under its ancestors' slugs. */
  async function rendered(knex: Knex, row: TermRow, site: Site) {
    return renderTerm(row, site, (await categoryPaths(knex, [row])).get(row.id));
  }

  /**
   * The term of the path's id, or the refusal The Events Calendar answers: it validates `id` as a
   * term of its taxonomy before permissions, so an unknown id is a 400 for anyone, the caller
   * without rights included. Writes look the term up again in their transaction.
   */
  async function existing(id: number) {
    const row = await findTerm(knex, taxonomy, id);
    if (!row) throw refusals.termInvalid();
    return row;
  }

  /** As the id, a category `parent` that names no category is refused before permissions. */
  async function knownParent(sent: Partial<TermWrite>) {
    if (kind === 'categories' && sent.parent && !(await findTerm(knex, taxonomy, sent.parent))) {
      throw refusals.parentTermInvalid();
    }
  }

  /** The parent must exist and must not be the term itself or one of its descendants. */
  async function checkParent(knex: Knex, parent: number, current?: TermRow) {
    if (!(await findTerm(knex, taxonomy, parent))) {
      throw refusals.parentTermInvalid();
    }
    // A term is its own first ancestor, so this also refuses parent = itself.
    if (current && (await ancestorIds(knex, parent)).includes(current.id)) {
      throw invalidParam('parent', 'parent: a category cannot go under itself or one of its descendants.');
    }
  }

  /** Name and description filtered as WordPress's pre_term_* filters; a name left empty is refused. */
  function filtered<T extends Partial<TermWrite>>(sent: T, user: User | undefined): T {
    const input = filterHtml('term', sent, user);
    if (input.name !== undefined && input.name.trim() === '')
      throw invalidParam('name', 'name must not be empty.');
    return input;
  }

  async function checkWrite(
    knex: Knex,
    input: Partial<TermWrite>,
    current?: TermRow,
  ): Promise<Partial<TermRow>> {
    const changes: Partial<TermRow> = {};
    const parent = kind === 'categories' ? (input.parent ?? current?.parent ?? 0) : 0;
    if (kind === 'categories' && input.parent !== undefined && input.parent !== 0) {
      await checkParent(knex, input.parent, current);
    }
    if (input.name !== undefined) {
      // Writers of one name wait for each other: the second then sees the first one's term.
      await lockName(knex, `${taxonomy}:${input.name.toLowerCase()}`);
      const duplicate = await findTermByName(
        knex,
        taxonomy,
        input.name,
        kind === 'categories' ? parent : undefined,
      );
      if (duplicate && duplicate.id !== current?.id) {
        throw refusals.termExists(duplicate.id, kind === 'categories');
      }
      changes.name = input.name;
    }
    if (input.slug !== undefined || !current) {
      const slug = slugify(input.slug ?? input.name ?? '');
      if (slug === '') throw invalidParam('slug', 'slug is invalid.');
      if (await slugTaken(knex, taxonomy, slug, current?.id)) {
        throw refusals.duplicateTermSlug(slug);
      }
      changes.slug = slug;
    }
    if (input.description !== undefined) changes.description = input.description;
    if (kind === 'categories' && input.parent !== undefined) changes.parent = input.parent;
    return changes;
  }

  return {
    async list(user: User | undefined, query: TermListQuery, site: Site) {
      const perPage = clampPerPage(query.per_page);
      const post = query.post ?? query.event;
      if (post !== undefined) await checkRelatedEvent(knex, query.post ? 'post' : 'event', post, user);
      // The Events Calendar validates include, exclude and (categories) parent as terms of the
      // taxonomy: one that names none is a 400, not an empty or unfiltered page. Parent 0 asks
      // for the top level.
      const refs = {
        include: query.include,
        exclude: query.exclude,
        parent: kind === 'categories' && query.parent ? [query.parent] : undefined,
      };
      for (const [name, ids] of Object.entries(refs)) {
        if (!ids) continue;
        const missing = await missingTermIds(knex, taxonomy, ids);
        if (missing.length > 0) throw invalidParam(name, `${name}: no term with ID ${missing.join(', ')}.`);
      }
      const { rows, total } = await listTerms(
        knex,
        {
          taxonomy,
          search: query.search,
          include: query.include,
          exclude: query.exclude,
          parent: kind === 'categories' ? query.parent : undefined,
          post,
          slug: query.slug,
          hideEmpty: query.hide_empty,
          orderby: query.orderby,
          order: query.order,
        },
        perPage,
        (query.page - 1) * perPage,
      );
      // Past the last page: 200 and an empty list, as TEC answers (Term_Archive_Base::get passes
      // WordPress's terms controller through, which does not refuse it); issue 44.
      const page = paginate(query.page, perPage, total);
      const paths = await categoryPaths(knex, rows);
      return { items: rows.map((row) => renderTerm(row, site, paths.get(row.id))), page };
    },

    async read(id: number, site: Site) {
      return rendered(knex, await existing(id), site);
    },

    async create(user: User | undefined, sent: TermWrite, site: Site) {
      await knownParent(sent);
      mayWrite(user);
      const input = filtered(sent, user);
      const row = await writeTransaction(knex, async (trx) => {
        const changes = await checkWrite(trx, input);
        return insertTerm(trx, {
          taxonomy,
          name: input.name,
          slug: changes.slug!,
          description: input.description ?? '',
          parent: kind === 'categories' ? (input.parent ?? 0) : 0,
          count: 0,
        });
      });
      return rendered(knex, row, site);
    },

    async update(user: User | undefined, id: number, sent: Partial<TermWrite>, site: Site) {
      await existing(id);
      await knownParent(sent);
      mayWrite(user);
      const input = filtered(sent, user);
      const row = await writeTransaction(knex, async (trx) => {
        const current = await findTerm(trx, taxonomy, id);
        if (!current) throw refusals.termInvalid();
        await updateTerm(trx, id, await checkWrite(trx, input, current));
        return (await findTerm(trx, taxonomy, id))!;
      });
      return rendered(knex, row, site);
    },

    async delete(user: User | undefined, id: number, site: Site) {
      await existing(id);
      mayWrite(user);
      const row = await writeTransaction(knex, async (trx) => {
        const current = await findTerm(trx, taxonomy, id);
        if (!current) throw refusals.termInvalid();
        await deleteTerm(trx, id);
        return current;
      });
      return rendered(knex, row, site);
    },
  };
}
