import { z } from 'zod';
import { postStatuses } from './auth.js';
import { captionsField } from './captions.js';
import { isEmail } from './email.js';

/*
 * One zod schema per resource and list. They validate requests (query strings and JSON or
 * form bodies, hence the lenient coercions) and generate the root description and /doc.
 */

const toInt = (v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v);
const toNumber = (v: unknown) =>
  typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v)) ? Number(v) : v;
const toBool = (v: unknown) => {
  if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : v;
  if (typeof v !== 'string') return v;
  const s = v.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(s)) return false;
  return v;
};
/** `a,b`, `['a','b']` (from `name[]=`) or a JSON array. */
const toList = (v: unknown) => {
  if (typeof v === 'number') return [v];
  if (typeof v !== 'string') return v;
  return v
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
};

/** Ids are PostgreSQL `integer`s: a larger one cannot exist, and would fail the query. */
export const MAX_ID = 2_147_483_647;
const idNumber = (error: string) =>
  z
    .number({ error })
    .int({ error })
    .min(1, { error })
    .max(MAX_ID, { error: `must be at most ${MAX_ID}` });

export const positiveInt = () => z.preprocess(toInt, idNumber('must be a positive integer'));
export const integer = () =>
  z.preprocess(
    toInt,
    z
      .number({ error: 'must be an integer' })
      .int({ error: 'must be an integer' })
      .min(-MAX_ID, { error: `must be at least -${MAX_ID}` })
      .max(MAX_ID, { error: `must be at most ${MAX_ID}` }),
  );
export const number = () => z.preprocess(toNumber, z.number({ error: 'must be a number' }));
export const boolean = () => z.preprocess(toBool, z.boolean({ error: 'must be a boolean' }));
export const text = () => z.string({ error: 'must be a string' });
const searchText = () =>
  text().max(MAX_SEARCH_LENGTH, { error: `must be at most ${MAX_SEARCH_LENGTH} characters` });
export const dateText = () =>
  z.union([z.string(), z.number()], { error: 'must be a date' }).transform((v) => String(v));
/**
 * Caps on what one request may ask a list for: each id or slug is a condition of the one list
 * statement, and a search a text to match, so their size bounds the work a request can cause.
 */
export const MAX_LIST_ITEMS = 100;
export const MAX_SEARCH_LENGTH = 200;
const listCap = { error: `must have at most ${MAX_LIST_ITEMS} items` };

export const idList = () =>
  z.preprocess(
    toList,
    z
      .array(z.preprocess(toInt, idNumber('must be a list of positive integers')), {
        error: 'must be a list of positive integers',
      })
      .max(MAX_LIST_ITEMS, listCap),
  );
/** Ids or slugs/names, mixed. */
export const idOrNameList = () =>
  z.preprocess(
    toList,
    z
      .array(
        z.union([z.preprocess(toInt, idNumber('must be a positive integer')), z.string().min(1).max(200)]),
        {
          error: 'must be a list of ids or names',
        },
      )
      .max(MAX_LIST_ITEMS, listCap),
  );
export const status = () => z.enum(postStatuses, { error: `must be one of ${postStatuses.join(', ')}` });
/** One status or several (CSV or array), as The Events Calendar lists them. */
export const statusList = () =>
  z.preprocess(
    toList,
    z
      .array(status(), { error: `must be a list of ${postStatuses.join(', ')}` })
      .min(1, { error: 'must not be empty' }),
  );

const perPageError = { error: 'must be a positive integer' };
const paging = {
  page: positiveInt().default(1).describe('Archive page'),
  // No upper bound: larger values are clamped to 50 (listing.ts), as The Events Calendar does.
  per_page: z
    .preprocess(toInt, z.number(perPageError).int(perPageError).min(1, perPageError))
    .default(10)
    .describe('Items per page (at most 50)'),
};

export const eventListQuery = z.object({
  ...paging,
  start_date: dateText().optional().describe('Events starting on or after the date'),
  end_date: dateText().optional().describe('Events ending on or before the date'),
  starts_before: dateText().optional().describe('Events starting before the date'),
  starts_after: dateText().optional().describe('Events starting after the date'),
  ends_before: dateText().optional().describe('Events ending before the date'),
  ends_after: dateText().optional().describe('Events ending after the date'),
  strict_dates: boolean().default(false).describe('Use the given times exactly instead of whole days'),
  search: searchText().optional().describe('Text in title, description or excerpt'),
  categories: idOrNameList().optional().describe('Category slugs or ids; any match'),
  tags: idOrNameList().optional().describe('Tag slugs or ids; any match'),
  venue: idList().optional().describe('Venue ids; any match'),
  organizer: idList().optional().describe('Organizer ids; any match'),
  featured: boolean().optional().describe('Filter by featured status'),
  status: statusList().optional().describe('Post statuses (CSV or array)'),
  geoloc: boolean().optional().describe('Venue has geolocation data'),
  geoloc_lat: number().optional().describe('Latitude; needs geoloc_lng'),
  geoloc_lng: number().optional().describe('Longitude; needs geoloc_lat'),
  geoloc_radius: number().default(10).describe('Radius in km around geoloc_lat/geoloc_lng'),
  include: idList().optional().describe('Event ids to include; date filters are ignored'),
  post_parent: positiveInt().optional().describe('Events whose parent is this event'),
  ticketed: boolean().optional().describe('With or without tickets'),
  password: text().optional().describe('Unlocks password-protected events'),
});
export type EventListQuery = z.infer<typeof eventListQuery>;

export const linkedListQuery = z.object({
  ...paging,
  search: searchText().optional().describe('Text in title, description or custom fields'),
  event: positiveInt().optional().describe('Related to this event'),
  has_events: boolean().optional().describe('Only those with events'),
  only_with_upcoming: boolean().default(false).describe('Only those with upcoming events'),
  status: statusList().optional().describe('Post statuses (CSV or array)'),
});
export type LinkedListQuery = z.infer<typeof linkedListQuery>;

const termOrderBy = ['id', 'include', 'name', 'slug', 'term_group', 'description', 'count'] as const;
export const termListQuery = z.object({
  ...paging,
  search: searchText().optional().describe('Match text'),
  exclude: idList().optional().describe('Ids to exclude'),
  include: idList().optional().describe('Only these ids'),
  order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('asc').describe('Sort direction'),
  orderby: z
    .enum(termOrderBy, { error: `must be one of ${termOrderBy.join(', ')}` })
    .default('name')
    .describe('Term attribute to sort by'),
  hide_empty: boolean().default(true).describe('Hide terms assigned to no events'),
  parent: integer().optional().describe('Categories only: parent term'),
  post: positiveInt().optional().describe('Terms assigned to this event'),
  event: positiveInt().optional().describe('Alias of post'),
  slug: text().max(200).optional().describe('Terms with this slug'),
});
export type TermListQuery = z.infer<typeof termListQuery>;

/** A linked record on an event write: an id, `{id}`, or the fields of a new one. */
// Ids beyond MAX_ID are left to the link resolution, which answers any missing id alike.
const linkRef = z.union([z.preprocess(toInt, z.number().int()), z.record(z.string(), z.unknown())]);
const links = () =>
  z.preprocess(
    (v) => (v === '' ? [] : v !== null && typeof v === 'object' && !Array.isArray(v) ? [v] : toList(v)),
    z.array(linkRef, { error: 'must be ids or objects' }),
  );

export const eventWrite = z.object({
  title: text().describe('Event title'),
  start_date: dateText().describe('Start date and time'),
  end_date: dateText().describe('End date and time'),
  author: positiveInt().optional().describe('Author ID'),
  date: dateText().optional().describe('Publication date'),
  date_utc: dateText().optional().describe('Publication date in UTC'),
  description: text().optional(),
  slug: text().optional(),
  excerpt: text().optional(),
  status: status().optional().describe('Post status'),
  timezone: text().optional(),
  all_day: boolean().optional().describe('Whole-day event'),
  image: z.union([z.string(), z.number()]).optional().describe('Featured image ID or URL'),
  cost: z
    .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()])), z.null()], {
      error: 'must be a string, a number or a list of them',
    })
    // A list of prices reads as a range, each price kept apart for cost_details.
    .transform((v) => (Array.isArray(v) ? v.join(', ') : v === null ? null : String(v)))
    .optional()
    .describe('The event cost: a price, a range or a list of prices'),
  website: z.unknown().optional().describe('Website URL'),
  show_map: boolean().optional(),
  show_map_link: boolean().optional(),
  hide_from_listings: boolean().optional().describe('Hide in calendar view'),
  sticky: boolean().optional().describe('Sticky in calendar view'),
  featured: boolean().optional(),
  ticketed: boolean().optional().describe('Whether the event sells tickets'),
  post_parent: positiveInt().optional().describe('Parent event ID'),
  categories: z
    .preprocess((v) => (v === '' ? [] : v), idOrNameList())
    .optional()
    .describe('Category IDs (or names)'),
  tags: z
    .preprocess((v) => (v === '' ? [] : v), idOrNameList())
    .optional()
    .describe('Tag IDs (or names)'),
  venue: links().optional().describe('Venue IDs or data'),
  organizer: links().optional().describe('Organizer IDs or data'),
  password: text().optional().describe('The event password'),
  captions: captionsField().optional(),
});
export type EventWrite = z.infer<typeof eventWrite>;

/** The event's yes/no settings: written as sent, stored in columns of the same names. */
export const eventFlags = [
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'ticketed',
] as const;

const optionalText = () => text().optional();
const postFields = {
  author: positiveInt().optional().describe('Author ID'),
  date: dateText().optional(),
  date_utc: dateText().optional(),
  description: optionalText(),
  excerpt: optionalText(),
  slug: optionalText(),
  status: status().optional(),
  image: z.union([z.string(), z.number()]).optional().describe('Featured image ID or URL'),
};

export const venueWrite = z.object({
  venue: text().min(1, { error: 'must not be empty' }).describe('Venue name'),
  ...postFields,
  show_map: boolean().optional(),
  show_map_link: boolean().optional(),
  address: optionalText(),
  city: optionalText(),
  country: optionalText(),
  province: optionalText(),
  state: optionalText(),
  zip: optionalText(),
  phone: optionalText(),
  stateprovince: optionalText(),
  website: optionalText(),
  geo_lat: number().optional(),
  geo_lng: number().optional(),
});
export type VenueWrite = z.infer<typeof venueWrite>;

export const organizerWrite = z.object({
  organizer: text().min(1, { error: 'must not be empty' }).describe('Organizer name'),
  ...postFields,
  phone: optionalText(),
  website: optionalText(),
  email: text().refine(isEmail, { error: 'must be an email address' }).optional(),
});
export type OrganizerWrite = z.infer<typeof organizerWrite>;

const nonEmpty = () => text().min(1, { error: 'must not be empty' });
export const categoryWrite = z.object({
  name: nonEmpty().describe('Category name'),
  description: nonEmpty().optional(),
  slug: nonEmpty().optional(),
  parent: integer().optional().describe('Parent category'),
});
export const tagWrite = z.object({
  name: nonEmpty().describe('Tag name'),
  description: nonEmpty().optional(),
  slug: nonEmpty().optional(),
});
export type TermWrite = z.infer<typeof categoryWrite>;

export const idParam = z.object({ id: positiveInt().describe('Unique identifier') });
export const slugParam = z.object({ slug: text().min(1).describe('Slug') });
export const passwordQuery = z.object({ password: text().optional().describe('The event password') });
export const rootQuery = z.object({
  namespace: text().default('cal/events/v1'),
  context: text().default('view'),
});

export * from './response-schemas.js';
