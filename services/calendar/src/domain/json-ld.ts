import { autop } from './autop.js';
import { displayCost } from './cost.js';
import { parseWall, toWall, wallAsUtc } from './dates.js';
import type { EventRow, renderEvent, renderOrganizer, renderVenue, Site } from './render.js';

/**
 * The schema.org JSON-LD The Events Calendar 6.17.2 adds as `json_ld` to a single event, venue
 * or organizer (Tribe__Events__JSON_LD__Event/Venue/Organizer over Tribe__JSON_LD__Abstract),
 * built from the rendered objects. Sites print it for search engines.
 */
type Venue = ReturnType<typeof renderVenue>;
type Organizer = ReturnType<typeof renderOrganizer>;
type Event = ReturnType<typeof renderEvent>;

/** WordPress's esc_js: HTML special characters as entities, quotes and newlines slashed. */
export function escJs(text: string): string {
  return text
    .replace(/\\(.?)/g, '$1')
    .replace(/&(?!(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);)/gi, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/&#(x)?0*(?:27|39);?/gi, "'")
    .replace(/\r/g, '')
    .replace(/(['\\])/g, '\\$1')
    .replace(/\n/g, '\\n');
}

/**
 * tribe_post_excerpt: the excerpt, or else the first 55 words of the content without its tags,
 * through wpautop. `excerpt` and `description` arrive rendered as the REST fields are: through
 * wpautop, then trimmed (Post_Repository trims them); tribe_post_excerpt does not trim, so the
 * closing newline wpautop puts after every paragraph comes back.
 */
function excerptOf(record: { excerpt?: string; description?: string }): string {
  if (record.excerpt) return `${record.excerpt}\n`;
  const words = (record.description ?? '')
    .replace(/<[^>]*>/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  return autop(words.length > 55 ? `${words.slice(0, 55).join(' ')}&hellip;` : words.join(' '));
}

/** `image` when the record has one with a URL (an image given by id alone has none here). */
const imageField = (image: false | null | undefined | { url: string }) =>
  image && image.url !== '' ? { image: image.url } : {};

/** The name of a venue or organizer, rendered under its kind's key. */
const nameOf = (record: object, key: 'venue' | 'organizer') =>
  String((record as Record<string, unknown>)[key] ?? '');

function thing(type: string, name: string, record: { excerpt?: string; description?: string }) {
  return { '@type': type, name: escJs(name), description: escJs(excerptOf(record)) };
}

export function venueJsonLd(venue: Venue) {
  const address = Object.fromEntries(
    Object.entries({
      '@type': 'PostalAddress',
      streetAddress: venue.address,
      addressLocality: venue.city,
      addressRegion: venue.stateprovince || venue.state || venue.province,
      postalCode: venue.zip,
      addressCountry: venue.country,
    }).filter(([, value]) => value),
  );
  return {
    ...thing('Place', nameOf(venue, 'venue'), venue),
    ...imageField(venue.image),
    // The venue's page is a Pro feature: without it The Events Calendar gives no link.
    url: '',
    address,
    ...(venue.geo_lat && venue.geo_lng
      ? { geo: { '@type': 'GeoCoordinates', latitude: venue.geo_lat, longitude: venue.geo_lng } }
      : {}),
    telephone: venue.phone ?? '',
    sameAs: venue.website ?? '',
  };
}

export function organizerJsonLd(organizer: Organizer) {
  return {
    ...thing('Person', nameOf(organizer, 'organizer'), organizer),
    ...imageField(organizer.image),
    url: organizer.website ?? '',
    telephone: organizer.phone ?? '',
    email: organizer.email ?? '',
    sameAs: organizer.website ?? '',
  };
}

/** `2030-07-01T18:00:00+02:00`: PHP's `c` format of a wall time with its offset from UTC. */
function iso(local: string, utc: Date): string {
  const offset = Math.round((wallAsUtc(parseWall(local)) - utc.getTime()) / 60_000);
  const abs = Math.abs(offset);
  const sign = offset < 0 ? '-' : '+';
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local.replace(' ', 'T')}${sign}${hh}:${mm}`;
}

export function eventJsonLd(row: EventRow, event: Event, site: Site) {
  const venue = Array.isArray(event.venue) ? undefined : event.venue;
  const organizer = event.organizer[0];
  const priceText = displayCost(row.cost, site.currency, false);
  const price = /^\s*free\s*$/i.test(priceText) ? '0' : priceText;
  // get_the_date() read back by strtotime: the publication day at midnight, UTC.
  const published = toWall(row.date_utc, site.timezone);
  const day = `${published.year}-${String(published.month).padStart(2, '0')}-${String(published.day).padStart(2, '0')}`;
  return {
    '@context': 'http://schema.org',
    ...thing('Event', event.title, { excerpt: event.excerpt, description: event.description }),
    ...imageField(event.image),
    url: event.url,
    eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
    eventStatus:
      row.event_status === 'cancelled'
        ? 'https://schema.org/EventCancelled'
        : 'https://schema.org/EventScheduled',
    startDate: iso(row.start_local, row.start_utc),
    endDate: iso(row.end_local, row.end_utc),
    ...(venue ? { location: venueJsonLd(venue) } : {}),
    ...(organizer ? { organizer: organizerJsonLd(organizer) } : {}),
    ...(price !== ''
      ? {
          offers: {
            '@type': 'Offer',
            price,
            priceCurrency: site.currency.code,
            url: event.url,
            category: 'primary',
            availability: 'inStock',
            validFrom: `${day}T00:00:00+00:00`,
          },
        }
      : {}),
    performer: 'Organization',
  };
}

/** A venue or organizer object with its `json_ld` where The Events Calendar puts it. */
export function withJsonLd<T extends Venue | Organizer>(record: T, kind: 'venue' | 'organizer'): T {
  const ld = kind === 'venue' ? venueJsonLd(record as Venue) : organizerJsonLd(record as Organizer);
  const before = kind === 'venue' ? 'show_map' : 'global_id';
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === before) out.json_ld = ld;
    out[key] = value;
  }
  return out as T;
}

/** A single event as The Events Calendar answers GET /events/{id}: JSON-LD on it and its relations. */
export function withEventJsonLd(row: EventRow, event: Event, site: Site) {
  return {
    ...event,
    venue: Array.isArray(event.venue) ? event.venue : withJsonLd(event.venue, 'venue'),
    organizer: event.organizer.map((organizer) => withJsonLd(organizer, 'organizer')),
    json_ld: eventJsonLd(row, event, site),
  };
}
