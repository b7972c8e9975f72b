/**
 * WordPress's sanitize_title_with_dashes (after remove_accents): lower case, accents removed,
 * letters and digits of other scripts kept percent-encoded in UTF-8 (`%e6%97%a5`), everything
 * else a dash between words.
 */
export function slugify(text: string): string {
  const words = decodeOctets(text)
    .replace(/<[^>]*>/g, '')
    // remove_accents maps ß to a single s.
    .replace(/ß/g, 's')
    .replace(/æ/gi, 'ae')
    .replace(/ø/gi, 'o')
    .replace(/œ/gi, 'oe')
    // remove_accents: Latin letters lose their accents; other scripts keep every mark.
    .replace(/[\u00c0-\u024f\u1e00-\u1eff]/g, (ch) => ch.normalize('NFD').replace(/\p{M}/gu, ''))
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return words.map(encodeSlugChars).join('-');
}

/** A slug sent already percent-encoded reads as its characters (then encoded once again). */
function decodeOctets(text: string): string {
  if (!/%[0-9a-f]{2}/i.test(text)) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Non-ASCII characters percent-encoded in lower case, as WordPress stores them in slugs. */
export function encodeSlugChars(text: string): string {
  return text.replace(/[^\p{ASCII}]+/gu, (chars) => encodeURIComponent(chars).toLowerCase());
}

/** A path's slug (decoded by the router) as stored: non-ASCII characters percent-encoded. */
export const storedSlug = ({ slug }: { slug: string }) => ({ slug: encodeSlugChars(slug) });

/** `base` when free, else the first free `base-2`, `base-3`... */
export function uniqueSlug(base: string, taken: Set<string>): string {
  const root = base || 'untitled';
  if (!taken.has(root)) return root;
  for (let n = 2; ; n++) {
    if (!taken.has(`${root}-${n}`)) return `${root}-${n}`;
  }
}

/**
 * WordPress's suffix on the slug of a post in the trash, which frees the slug for others. Our
 * slugs are unique per table (WordPress's post_name is not), so a second post trashed with the
 * same slug gets `__trashed-2`, `-3`... (see trashSlug); the number goes when it leaves.
 */
const TRASHED = '__trashed';
const TRASHED_END = /__trashed(?:-\d+)?$/;
export const trashedSlug = (slug: string) => (TRASHED_END.test(slug) ? slug : `${slug}${TRASHED}`);
/** The slug a post leaving the trash wants back. */
export const untrashedSlug = (slug: string) => slug.replace(TRASHED_END, '');
