import type { Request } from 'express';
import type { User } from '../domain/auth.js';
import type { TermKind } from '../domain/render.js';
import { categoryWrite, idParam, type TermWrite, tagWrite, termListQuery } from '../domain/schemas.js';
import { termLinks } from '../domain/term-links.js';
import { validate } from '../domain/validate.js';
import { termService } from '../services/terms.js';
import { allowedMethods } from './allow.js';
import { type AppContext, type Handlers, handle, params, sendList, siteOf, userOf } from './context.js';

/** `/categories` and `/tags` handlers by operation of the route table: validate, one call, send. */
export function termHandlers(ctx: AppContext, kind: TermKind): Handlers {
  const service = termService(ctx, kind);
  const schema = kind === 'categories' ? categoryWrite : tagWrite;
  /** A single term as The Events Calendar answers its GET, create and update: with `_links`. */
  const withLinks = <T extends Parameters<typeof termLinks>[0]>(
    term: T,
    req: Request,
    user: User | undefined,
  ) => ({
    ...term,
    _links: termLinks(term, siteOf(req, ctx), allowedMethods(`/${kind}/${term.id}`, user)),
  });

  return {
    [`${kind}.list`]: handle(async (req, res) => {
      const query = validate(termListQuery, params(req));
      const site = siteOf(req, ctx);
      const { items, page } = await service.list(userOf(res), query, site);
      sendList(req, res, site, kind, items, page);
    }),
    [`${kind}.create`]: handle(async (req, res) => {
      const input = validate(schema, params(req)) as TermWrite;
      const rendered = await service.create(userOf(res), input, siteOf(req, ctx));
      res
        .status(201)
        .location(rendered.urls.self!)
        .json(withLinks(rendered, req, userOf(res)));
    }),
    [`${kind}.read`]: handle(async (req, res) => {
      const { id } = validate(idParam, req.params);
      res.json(withLinks(await service.read(id, siteOf(req, ctx)), req, userOf(res)));
    }),
    [`${kind}.update`]: handle(async (req, res) => {
      const { id } = validate(idParam, req.params);
      const input = validate(schema.partial(), params(req)) as Partial<TermWrite>;
      res.json(withLinks(await service.update(userOf(res), id, input, siteOf(req, ctx)), req, userOf(res)));
    }),
    [`${kind}.delete`]: handle(async (req, res) => {
      const { id } = validate(idParam, req.params);
      // No `_links`: The Events Calendar's delete answers WordPress's deletion response, which has none.
      res.json(await service.delete(userOf(res), id, siteOf(req, ctx)));
    }),
  };
}
