import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Knex } from 'knex';
import type { Tokens } from '../adapters/tokens.js';
import { tzAbbreviation } from '../adapters/tzdata.js';
import type { User } from '../domain/auth.js';
import type { Currency } from '../domain/cost.js';
import type { ListUrls } from '../domain/list-urls.js';
import { MAX_PER_PAGE } from '../domain/listing.js';
import { restBase, type Site } from '../domain/render.js';

export const NAMESPACE = 'cal/events/v1';

export interface AppContext {
  knex: Knex;
  restRoot: string;
  timezone: string;
  tokens: Tokens;
  currency: Currency;
  /** The clock, replaceable in tests. */
  now: () => Date;
  /** Bytes of rendered list events kept for reuse (0: none; the benchmark measures both). */
  renderedEventsBytes?: number;
}

export function siteOf(req: Request, ctx: AppContext): Site {
  return {
    origin: `${req.protocol}://${req.get('host') ?? 'localhost'}`,
    restRoot: ctx.restRoot,
    namespace: NAMESPACE,
    timezone: ctx.timezone,
    abbreviations: tzAbbreviation,
    currency: ctx.currency,
  };
}

export const userOf = (res: Response): User | undefined => res.locals.user as User | undefined;

/** Route handlers by operation name of the route table (`events.read`). */
export type Handlers = Record<string, RequestHandler>;

/** Whether an item route was reached by id (`/events/{id}`) or by slug (`/events/by-slug/{slug}`). */
export const keyOf = (req: Request): 'id' | 'slug' => ('slug' in req.params ? 'slug' : 'id');

/** Express 5 forwards rejected promises to the error handler; this only names the type. */
export const handle = (
  fn: (req: Request, res: Response, next: NextFunction) => Promise<void>,
): RequestHandler => fn;

/**
 * Query and body merged, body first, as WordPress merges request parameters; a GET or HEAD takes
 * its parameters from the URL only, so that its answer is its URL's (and cacheable).
 */
export function params(req: Request): Record<string, unknown> {
  const readsBody = req.method !== 'GET' && req.method !== 'HEAD';
  const body =
    readsBody && req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  return { ...(req.query as Record<string, unknown>), ...body };
}

/** Items already serialized, each one's JSON as UTF-8 (the rendered events of a list). */
export interface SerializedItems {
  json: Buffer[];
}

const COMMA = Buffer.from(',');

/**
 * Sends a collection in The Events Calendar's envelope: items under `key`, rest_url,
 * next/previous links when they apply, total and total_pages, and the total headers. The
 * body is the text `res.json` would send, spliced from serialized items when given those.
 * `urls`, where the list resolved its own (events, as TEC: domain/list-urls.ts), replace the
 * links that repeat the request's query.
 */
export function sendList(
  req: Request,
  res: Response,
  site: Site,
  key: string,
  items: unknown[] | SerializedItems,
  page: { page: number; total: number; totalPages: number },
  urls?: ListUrls,
) {
  const collection = `${restBase(site)}/${key}/`;
  const original = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
  const linkTo = (target: number) => {
    const query = new URLSearchParams(original);
    query.delete('page');
    // A per_page above the cap names the cap, as the page was built with it.
    if (Number(query.get('per_page')) > MAX_PER_PAGE) query.set('per_page', String(MAX_PER_PAGE));
    if (target > 1) query.set('page', String(target));
    const text = query.toString();
    return text ? `${collection}?${text}` : collection;
  };
  const body: Record<string, unknown> = urls ? { ...urls } : { rest_url: linkTo(page.page) };
  if (!urls && page.page < page.totalPages) body.next_rest_url = linkTo(page.page + 1);
  if (!urls && page.page > 1) body.previous_rest_url = linkTo(page.page - 1);
  body.total = page.total;
  body.total_pages = page.totalPages;
  res.set({
    'X-TEC-Total': String(page.total),
    'X-TEC-TotalPages': String(page.totalPages),
    'X-WP-Total': String(page.total),
    'X-WP-TotalPages': String(page.totalPages),
  });
  const envelope = JSON.stringify(body).slice(1);
  if (Array.isArray(items)) {
    res.type('application/json').send(`{${JSON.stringify(key)}:${JSON.stringify(items)},${envelope}`);
    return;
  }
  // Spliced as bytes: encoding a whole page's text again would cost more than rendering it did.
  const chunks: Buffer[] = [Buffer.from(`{${JSON.stringify(key)}:[`)];
  for (const [i, item] of items.json.entries()) chunks.push(...(i === 0 ? [item] : [COMMA, item]));
  chunks.push(Buffer.from(`],${envelope}`));
  res.type('application/json; charset=utf-8').send(Buffer.concat(chunks));
}
