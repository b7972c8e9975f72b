import { z } from 'zod';
import { captionsOut } from './captions.js';

/** The shapes of the answers, for the root description and /doc only (answers are rendered, not parsed). */

export const dateDetails = z.object({
  year: z.string(),
  month: z.string(),
  day: z.string(),
  hour: z.string(),
  minutes: z.string(),
  seconds: z.string(),
});
export const costDetails = z.object({
  currency_symbol: z.string(),
  currency_code: z.string(),
  currency_position: z.enum(['', 'prefix', 'postfix']).describe("'' when the cost names no symbol"),
  values: z.array(z.string()),
});
export const image = z.object({
  url: z.string(),
  id: z.number().int(),
  extension: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  sizes: z.record(z.string(), z.unknown()),
});
const termUrls = z.object({ self: z.string(), collection: z.string(), up: z.string().optional() });
export const term = z.object({
  id: z.number().int(),
  count: z.number().int(),
  description: z.string(),
  name: z.string(),
  slug: z.string(),
  taxonomy: z.string(),
  parent: z.number().int().optional().describe('Categories only'),
  meta: z.array(z.unknown()),
  url: z.string().describe("The archive page; a category's under its ancestors' slugs"),
  urls: termUrls,
  _links: z
    .record(z.string(), z.array(z.record(z.string(), z.unknown())))
    .optional()
    .describe(
      'On a single term (GET, create, update; not in lists nor on delete): self, collection, about, up, wp:post_type, curies',
    ),
});
/** A term inside an event: the WP_Term fields The Events Calendar answers there. */
const eventTerm = z.object({
  name: z.string(),
  slug: z.string(),
  term_group: z.number().int(),
  term_taxonomy_id: z.number().int(),
  taxonomy: z.string(),
  description: z.string(),
  parent: z.number().int(),
  count: z.number().int(),
  filter: z.literal('raw'),
  id: z.number().int(),
  urls: termUrls,
});
const jsonLd = z
  .record(z.string(), z.unknown())
  .optional()
  .describe('schema.org JSON-LD; single reads only (and the venue and organizers of a single event)');
/** Post fields every object carries after its id (events put their global ids between). */
const postOut = {
  author: z.string(),
  status: z.string(),
  date: z.string(),
  date_utc: z.string(),
  modified: z.string(),
  modified_utc: z.string(),
  url: z.string(),
};
const globalIds = { global_id: z.string(), global_id_lineage: z.array(z.string()) };
/** What venues and organizers carry after their name (empty ones are omitted). */
const linkedPostOut = {
  description: z.string().optional(),
  excerpt: z.string().optional(),
  slug: z.string(),
  image: z.union([z.literal(false), image]).optional(),
};
export const venue = z.object({
  id: z.number().int(),
  ...postOut,
  venue: z.string(),
  ...linkedPostOut,
  address: z.string().optional(),
  city: z.string().optional(),
  country: z.string().optional(),
  province: z.string().optional(),
  state: z.string().optional(),
  zip: z.string().optional(),
  phone: z.string().optional(),
  website: z.string().optional(),
  stateprovince: z.string().optional(),
  geo_lat: z.number().optional(),
  geo_lng: z.number().optional(),
  json_ld: jsonLd,
  show_map: z.boolean(),
  show_map_link: z.boolean(),
  ...globalIds,
});
export const organizer = z.object({
  id: z.number().int(),
  ...postOut,
  organizer: z.string(),
  ...linkedPostOut,
  phone: z.string().optional(),
  website: z.string().optional(),
  email: z.string().optional(),
  json_ld: jsonLd,
  ...globalIds,
});
export const event = z.object({
  id: z.number().int(),
  ...globalIds,
  ...postOut,
  rest_url: z.string(),
  title: z.string(),
  description: z.string(),
  excerpt: z.string(),
  slug: z.string(),
  image: z.union([z.literal(false), image]),
  all_day: z.boolean().nullable(),
  start_date: z.string(),
  start_date_details: dateDetails,
  end_date: z.string(),
  end_date_details: dateDetails,
  utc_start_date: z.string(),
  utc_end_date: z.string(),
  utc_start_date_details: dateDetails,
  utc_end_date_details: dateDetails,
  timezone: z.string(),
  timezone_abbr: z.string(),
  cost: z.string(),
  cost_details: costDetails,
  website: z.string(),
  show_map: z.boolean().nullable(),
  show_map_link: z.boolean().nullable(),
  hide_from_listings: z.boolean().nullable(),
  sticky: z.boolean().nullable(),
  featured: z.boolean().nullable(),
  ticketed: z.boolean().nullable(),
  categories: z.array(eventTerm),
  tags: z.array(eventTerm),
  venue: z.union([venue, z.array(z.never())]),
  organizer: z.array(organizer),
  custom_fields: z.array(z.unknown()),
  captions: captionsOut,
  json_ld: jsonLd,
});
