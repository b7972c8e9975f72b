import { eventListQuery, eventWrite, idParam, passwordQuery, slugParam } from '../domain/schemas.js';
import { storedSlug } from '../domain/slug.js';
import { validate } from '../domain/validate.js';
import { eventNotFound, eventService } from '../services/events.js';
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

/** The handlers of the event routes, by operation of the route table: validate, one call, send. */
export function eventHandlers(ctx: AppContext): Handlers {
  const events = eventService(ctx);

  const byKey = (req: { params: Record<string, unknown> }, key: 'id' | 'slug') => {
    // Id 0 names no event (The Events Calendar: 404), rather than a malformed id (400).
    if (key === 'id' && /^0+$/.test(String(req.params.id))) throw eventNotFound(0);
    return key === 'id' ? validate(idParam, req.params) : storedSlug(validate(slugParam, req.params));
  };

  return {
    'events.list': handle(async (req, res) => {
      const query = validate(eventListQuery, params(req));
      const site = siteOf(req, ctx);
      const { events: page, page: paging, urls } = await events.list(userOf(res), query, site);
      sendList(req, res, site, 'events', { json: page }, paging, urls);
    }),
    'events.read': handle(async (req, res) => {
      const by = byKey(req, keyOf(req));
      const { password } = validate(passwordQuery, params(req));
      res.json(await events.read(userOf(res), by, password, siteOf(req, ctx)));
    }),
    'events.create': handle(async (req, res) => {
      const input = validate(eventWrite, params(req));
      res.status(201).json(await events.create(userOf(res), input, siteOf(req, ctx)));
    }),
    'events.update': handle(async (req, res) => {
      const by = byKey(req, keyOf(req));
      const input = validate(eventWrite.partial(), params(req));
      res.json(await events.update(userOf(res), by, input, siteOf(req, ctx)));
    }),
    'events.trash': handle(async (req, res) => {
      const by = byKey(req, keyOf(req));
      validate(passwordQuery, params(req));
      res.json(await events.trash(userOf(res), by, siteOf(req, ctx)));
    }),
  };
}
