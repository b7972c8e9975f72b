import type { RequestHandler } from 'express';
import {
  ancestorIds,
  deleteTerm,
  findTerm,
  findTermByName,
  insertTerm,
  listTerms,
  missingTermIds,
  slugTaken,
  updateTerm,
} from '../adapters/terms-repo.js';
import { canPublish, forbidden, isEditor } from '../domain/auth.js';
import { invalidParam, refusals } from '../domain/errors.js';
import { clampPerPage, paginate } from '../domain/listing.js';
import { renderTerm, type TermKind, type TermRow, taxonomies } from '../domain/render.js';
import { categoryWrite, idParam, type TermWrite, tagWrite, termListQuery } from '../domain/schemas.js';
import { slugify } from '../domain/slug.js';
import { validate } from '../domain/validate.js';
import { checkRelatedEvent } from '../services/linking.js';
import { type AppContext, type Handlers, handle, params, sendList, siteOf, userOf } from './context.js';

const invalidTerm = refusals.termInvalid;

/** `/categories` and `/tags`: WordPress terms of the two event taxonomies. */
export function termHandlers(ctx: AppContext, kind: TermKind): Handlers {
  const handlers: Handlers = {};
  const on = (operation: string, handler: RequestHandler) => {
    handlers[`${kind}.${operation}`] = handler;
  };
  const { knex } = ctx;
  const taxonomy = taxonomies[kind];
  const schema = kind === 'categories' ? categoryWrite : tagWrite;

  /**
   * Tags and every delete: editors and administrators. Creating and editing categories: authors
   * too, as The Events Calendar ties category rights to publishing events.
   */
  const mayWrite = (res: Parameters<typeof userOf>[0], action: 'write' | 'delete') => {
    const user = userOf(res);
    const allowed = kind === 'categories' && action === 'write' ? canPublish(user) : isEditor(user);
    if (!allowed) throw forbidden(user, 'Sorry, you are not allowed to manage terms.');
  };

  /** The parent must exist and must not be the term itself or one of its descendants. */
  async function checkParent(parent: number, current?: TermRow) {
    if (!(await findTerm(knex, taxonomy, parent))) {
      throw refusals.parentTermInvalid();
    }
    // A term is its own first ancestor, so this also refuses parent = itself.
    if (current && (await ancestorIds(knex, parent)).includes(current.id)) {
      throw invalidParam('parent', 'parent: a category cannot go under itself or one of its descendants.');
    }
  }

  async function checkWrite(input: Partial<TermWrite>, current?: TermRow): Promise<Partial<TermRow>> {
    const changes: Partial<TermRow> = {};
    const parent = kind === 'categories' ? (input.parent ?? current?.parent ?? 0) : 0;
    if (kind === 'categories' && input.parent !== undefined && input.parent !== 0) {
      await checkParent(input.parent, current);
    }
    if (input.name !== undefined) {
      const duplicate = await findTermByName(
        knex,
        taxonomy,
        input.name,
        kind === 'categories' ? parent : undefined,
      );
      if (duplicate && duplicate.id !== current?.id) {
        throw refusals.termExists(duplicate.id);
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

  on(
    'list',
    handle(async (req, res) => {
      const query = validate(termListQuery, params(req));
      const perPage = clampPerPage(query.per_page);
      const post = query.post ?? query.event;
      if (post !== undefined) await checkRelatedEvent(knex, query.post ? 'post' : 'event', post, userOf(res));
      if (query.include) {
        const missing = await missingTermIds(knex, taxonomy, query.include);
        if (missing.length > 0)
          throw invalidParam('include', `include: no term with ID ${missing.join(', ')}.`);
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
      const page = paginate(query.page, perPage, total, () =>
        invalidParam('page', 'The page number requested is larger than the number of pages available.'),
      );
      const site = siteOf(req, ctx);
      sendList(
        req,
        res,
        site,
        kind,
        rows.map((row) => renderTerm(row, site)),
        page,
      );
    }),
  );

  on(
    'create',
    handle(async (req, res) => {
      const input = validate(schema, params(req)) as TermWrite;
      mayWrite(res, 'write');
      const changes = await checkWrite(input);
      const row = await insertTerm(knex, {
        taxonomy,
        name: input.name,
        slug: changes.slug!,
        description: input.description ?? '',
        parent: kind === 'categories' ? (input.parent ?? 0) : 0,
        count: 0,
      });
      const rendered = renderTerm(row, siteOf(req, ctx));
      res.status(201).location(rendered.urls.self!).json(rendered);
    }),
  );

  on(
    'read',
    handle(async (req, res) => {
      const { id } = validate(idParam, req.params);
      const row = await findTerm(knex, taxonomy, id);
      if (!row) throw invalidTerm();
      res.json(renderTerm(row, siteOf(req, ctx)));
    }),
  );

  on(
    'update',
    handle(async (req, res) => {
      const { id } = validate(idParam, req.params);
      const input = validate(schema.partial(), params(req)) as Partial<TermWrite>;
      mayWrite(res, 'write');
      const row = await findTerm(knex, taxonomy, id);
      if (!row) throw invalidTerm();
      await updateTerm(knex, id, await checkWrite(input, row));
      res.json(renderTerm((await findTerm(knex, taxonomy, id))!, siteOf(req, ctx)));
    }),
  );

  on(
    'delete',
    handle(async (req, res) => {
      const { id } = validate(idParam, req.params);
      mayWrite(res, 'delete');
      const row = await findTerm(knex, taxonomy, id);
      if (!row) throw invalidTerm();
      await deleteTerm(knex, id);
      res.json(renderTerm(row, siteOf(req, ctx)));
    }),
  );

  return handlers;
}
