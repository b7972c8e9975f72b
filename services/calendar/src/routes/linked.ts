import type { Request } from 'express';
import type { LinkedKind } from '../adapters/linked-repo.js';
import { idParam, linkedListQuery, organizerWrite, slugParam, venueWrite } from '../domain/schemas.js';
import { storedSlug } from '../domain/slug.js';
import { validate } from '../domain/validate.js';
import { linkedService } from '../services/linked.js';
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

/** `/venues` and `/organizers` handlers by operation of the route table: validate, one call, send. */
export function linkedHandlers(ctx: AppContext, kind: LinkedKind): Handlers {
  const service = linkedService(ctx, kind);
  const collection = `${kind}s`;
  const schema = kind === 'venue' ? venueWrite : organizerWrite;
  const by = (req: Request) =>
    keyOf(req) === 'id' ? validate(idParam, req.params) : storedSlug(validate(slugParam, req.params));

  return {
    [`${collection}.list`]: handle(async (req, res) => {
      const query = validate(linkedListQuery, params(req));
      const site = siteOf(req, ctx);
      const { items, page } = await service.list(userOf(res), query, site);
      sendList(req, res, site, collection, items, page);
    }),
    [`${collection}.create`]: handle(async (req, res) => {
      const input = validate(schema, params(req));
      res.status(201).json(await service.create(userOf(res), input, siteOf(req, ctx)));
    }),
    [`${collection}.read`]: handle(async (req, res) => {
      res.json(await service.read(userOf(res), by(req), siteOf(req, ctx)));
    }),
    [`${collection}.update`]: handle(async (req, res) => {
      const where = by(req);
      const input = validate(schema.partial(), params(req)) as Record<string, unknown>;
      res.json(await service.update(userOf(res), where, input, siteOf(req, ctx)));
    }),
    [`${collection}.trash`]: handle(async (req, res) => {
      res.json(await service.trash(userOf(res), by(req), siteOf(req, ctx)));
    }),
  };
}
