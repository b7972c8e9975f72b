import { autop } from './autop.js';

/*
 * Parts of the post objects (events, venues, organizers) as TEC's Post_Repository answers them.
 */

/**
 * A post text as TEC's Post_Repository answers it: `trim( apply_filters( 'the_content' | 'the_excerpt', ... ) )`
 * (get_event_data, get_venue_data, get_organizer_data), so wpautop's closing newline goes.
 */
export const postText = (text: string) => autop(text).trimEnd();

/** WordPress's post types of TEC's records, as a trashed record's link names them. */
const postTypes = { event: 'tribe_events', venue: 'tribe_venue', organizer: 'tribe_organizer' } as const;

/**
 * A record's `url`: its pretty permalink, or, in the trash, the plain link get_permalink gives a
 * post no longer published (`/?p=ID&post_type=tribe_venue`, as TEC 6.17.2 answered on WordPress 7.0.4).
 */
export const permalink = (
  row: { id: number; status: string; slug: string },
  site: { origin: string },
  kind: keyof typeof postTypes,
) =>
  row.status === 'trash'
    ? `${site.origin}/?p=${row.id}&post_type=${postTypes[kind]}`
    : `${site.origin}/${kind}/${row.slug}/`;

/** Drops null and empty-string fields, as venue and organizer objects omit empty ones. */
export function compact<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(object).filter(([, v]) => v !== null && v !== '' && v !== undefined),
  ) as Partial<T>;
}
