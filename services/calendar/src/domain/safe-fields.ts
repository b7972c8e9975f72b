import { hasUnfilteredHtml, type User } from './auth.js';
import { invalidParam } from './errors.js';
import { type KsesContext, kses } from './kses.js';
import { ALLOWED_PROTOCOLS } from './kses-tags.js';

/**
 * Every write field that can hold HTML, per record kind, with the kses list WordPress filters it
 * with: titles and names as `title_save_pre`/`pre_term_name` (`$allowedtags`), descriptions and
 * excerpts as `content_save_pre`/`excerpt_save_pre` (`$allowedposttags`). The one-line venue and
 * organizer fields and the cost are post meta WordPress does not filter; sites print them as
 * HTML all the same, so they get the title list.
 */
export const htmlFields = {
  event: { title: 'title', description: 'post', excerpt: 'post', cost: 'title' },
  venue: {
    venue: 'title',
    description: 'post',
    excerpt: 'post',
    address: 'title',
    city: 'title',
    country: 'title',
    province: 'title',
    state: 'title',
    zip: 'title',
    phone: 'title',
    stateprovince: 'title',
  },
  organizer: { organizer: 'title', description: 'post', excerpt: 'post', phone: 'title' },
  term: { name: 'title', description: 'term' },
} as const satisfies Record<string, Record<string, KsesContext>>;
export type HtmlKind = keyof typeof htmlFields;

/** The stored column of each write field, where they differ (venue and organizer names). */
export const columnOf = (kind: HtmlKind, field: string) =>
  (kind === 'venue' && field === 'venue') || (kind === 'organizer' && field === 'organizer')
    ? 'title'
    : field;

/**
 * `input` with its HTML fields filtered when `user` lacks `unfiltered_html` (below editor);
 * editors and administrators keep what they send, as in WordPress.
 */
export function filterHtml<T extends object>(kind: HtmlKind, input: T, user: User | undefined): T {
  if (hasUnfilteredHtml(user)) return input;
  const out = { ...input } as Record<string, unknown>;
  for (const [field, context] of Object.entries(htmlFields[kind])) {
    const value = out[field];
    if (typeof value === 'string') out[field] = kses(value, context);
  }
  return out as T;
}

/**
 * A URL field's value (website, image URL): an absolute URL with a host, or one of the
 * schemes WordPress's `esc_url_raw` keeps that need none (`mailto:`, `tel:`...). Anything else,
 * `javascript:`, `data:` and `vbscript:` included, is refused with 400 for every role: The
 * Events Calendar validates these fields with `FILTER_VALIDATE_URL` and answers 400 too.
 */
export function isSafeUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return false;
  }
  const scheme = url.protocol.slice(0, -1);
  if (!ALLOWED_PROTOCOLS.includes(scheme)) return false;
  return ['http', 'https', 'ftp', 'ftps'].includes(scheme) ? url.hostname !== '' : true;
}

/** Refuses `value` for `param` unless it is empty or a safe URL. */
export function checkUrl(param: string, value: unknown) {
  if (value === undefined || value === null || value === '') return;
  if (typeof value !== 'string' || !isSafeUrl(value)) {
    throw invalidParam(param, `${param} must be a valid URL.`);
  }
}

/** `image`: a media id (digits) or a safe URL. */
export function checkImage(param: string, value: unknown) {
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))) return;
  if (value === '' || value === undefined || value === null) return;
  if (typeof value !== 'string' || !isSafeUrl(value)) {
    throw invalidParam(param, `${param} must be an image id or a valid URL.`);
  }
}
