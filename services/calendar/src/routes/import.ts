import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import type { FeedFetchRule } from '../adapters/fetch-feed.js';
import { FeedFetchError } from '../adapters/fetch-feed.js';
import { ApiError, invalidParam } from '../domain/errors.js';
import { validate } from '../domain/validate.js';
import { importService } from '../services/import.js';
import { type AppContext, handle, params, userOf } from './context.js';

/** Import settings of the app (config.ts: CALENDAR_IMPORT_*). */
export interface ImportOptions extends FeedFetchRule {
  horizonDays: number;
}

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
});

/**
 * `POST {root}/cal/events/v1/import`: our extension (The Events Calendar has no import route).
 * Its own body parser, before the API's 1 MB one: a schedule may be up to the import limit.
 */
export function importRoute(ctx: AppContext, options: ImportOptions): RequestHandler[] {
  const imports = importService({ ...ctx, fetchRule: options, horizonDays: options.horizonDays });
  // JSON escapes (a newline is two bytes) can double the text; the content itself is checked after.
  const body = express.json({ limit: options.maxBytes * 2 + 65_536 });
  return [
    body,
    handle(async (req, res) => {
      const input = validate(importBody, params(req));
      if ((input.content === undefined) === (input.url === undefined)) {
        throw invalidParam('content', 'Send the schedule as content, or its url (one of them).');
      }
      try {
        const result = await imports.run(userOf(res), {
          format: input.format,
          content: input.content,
          url: input.url,
          source: input.source,
          dryRun: input.dryRun || input.dry_run,
        });
        res.status(result.dry_run ? 200 : 201).json(result);
      } catch (error) {
        if (error instanceof FeedFetchError) throw new ApiError(error.status, error.code, error.message);
        throw error;
      }
    }),
  ];
}
