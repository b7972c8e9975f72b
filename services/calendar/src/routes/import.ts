import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import type { FeedFetchRule } from '../adapters/fetch-feed.js';
import { FeedFetchError } from '../adapters/fetch-feed.js';
import { ApiError, invalidParam } from '../domain/errors.js';
import { validate } from '../domain/validate.js';
import { importService } from '../services/import.js';
import { subscriptionService } from '../services/subscriptions.js';
import { type AppContext, handle, params, userOf } from './context.js';

/** Import settings of the app (config.ts: CALENDAR_IMPORT_*). */
export interface ImportOptions extends FeedFetchRule {
  horizonDays: number;
}

/** Bounds of a subscription's period in minutes: not hammering a feed, not forgetting it. */
export const EVERY_MIN = 5;
export const EVERY_MAX = 1440;
const everyWhy = `must be a whole number of minutes from ${EVERY_MIN} to ${EVERY_MAX}`;

const flag = z
  .union([z.boolean(), z.enum(['1', '0', 'true', 'false'])])
  .optional()
  .transform((value) => value === true || value === '1' || value === 'true');

export const importBody = z.object({
  format: z.enum(['ical', 'frab-json', 'frab-xml']),
  content: z.string().optional(),
  url: z.string().max(2000).optional(),
  source: z.string().min(1).max(500).optional(),
  dryRun: flag,
  dry_run: flag,
  // Minutes: import this url again every N minutes (a subscription).
  every: z.coerce
    .number({ message: everyWhy })
    .int({ message: everyWhy })
    .min(EVERY_MIN, { message: everyWhy })
    .max(EVERY_MAX, { message: everyWhy })
    .optional(),
});

/**
 * `POST {root}/cal/events/v1/import`: our extension (The Events Calendar has no import route).
 * Its own body parser, before the API's 1 MB one: a schedule may be up to the import limit.
 */
export function importRoute(ctx: AppContext, options: ImportOptions): RequestHandler[] {
  const imports = importService({ ...ctx, fetchRule: options, horizonDays: options.horizonDays });
  const subscriptions = subscriptionService({ ...ctx, fetchRule: options, horizonDays: options.horizonDays });
  // JSON escapes (a newline is two bytes) can double the text; the content itself is checked after.
  const body = express.json({ limit: options.maxBytes * 2 + 65_536 });
  return [
    body,
    handle(async (req, res) => {
      const input = validate(importBody, params(req));
      if ((input.content === undefined) === (input.url === undefined)) {
        throw invalidParam('content', 'Send the schedule as content, or its url (one of them).');
      }
      const dryRun = input.dryRun || input.dry_run;
      if (input.every !== undefined && input.url === undefined) {
        throw invalidParam('every', 'every needs a url: an uploaded file cannot be fetched again.');
      }
      if (input.every !== undefined && dryRun) {
        throw invalidParam('every', 'every cannot go with a dry run: a preview subscribes to nothing.');
      }
      const user = userOf(res);
      try {
        const result = await imports.run(user, {
          format: input.format,
          content: input.content,
          url: input.url,
          source: input.source,
          dryRun,
        });
        if (input.every === undefined) {
          res.status(result.dry_run ? 200 : 201).json(result);
          return;
        }
        // Only an import that went through is remembered: a feed that fails now is refused now.
        const subscription = await subscriptions.save(
          {
            url: input.url!,
            format: input.format,
            source: result.source,
            everyMinutes: input.every,
            userId: user!.id,
          },
          result.summary,
        );
        res.status(201).json({ ...result, subscription });
      } catch (error) {
        if (error instanceof FeedFetchError) throw new ApiError(error.status, error.code, error.message);
        throw error;
      }
    }),
  ];
}

/**
 * `GET {root}/cal/events/v1/import/subscriptions` and `DELETE .../import/subscriptions/{id}`:
 * the feeds imported again every N minutes (editors only, as the import).
 */
export function subscriptionRoutes(ctx: AppContext, options: ImportOptions): express.Router {
  const subscriptions = subscriptionService({ ...ctx, fetchRule: options, horizonDays: options.horizonDays });
  const router = express.Router();
  router.get(
    '/import/subscriptions',
    handle(async (_req, res) => {
      res.json(await subscriptions.list(userOf(res)));
    }),
  );
  router.delete(
    '/import/subscriptions/:id',
    handle(async (req, res) => {
      const id = /^[0-9]{1,9}$/.test(String(req.params.id)) ? Number(req.params.id) : 0;
      res.json({ deleted: true, previous: await subscriptions.remove(userOf(res), id) });
    }),
  );
  return router;
}
