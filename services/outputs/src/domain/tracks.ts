/**
 * Tracks: which language stream of an output room a caption belongs to. `original` is what was
 * spoken (any caption not labelled `translation`); a translation's track is its `ln`, e.g. `es`.
 * Codes are compared in their canonical BCP-47 form, so `pt-br` and `pt-BR` are one track.
 */
export const ORIGINAL = 'original';
export const TRANSLATION_LABEL = 'translation';

const TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/** The canonical form of a BCP-47 language tag (`pt-br` -> `pt-BR`), or undefined when it is none. */
export function canonicalTag(tag: string): string | undefined {
  if (!TAG.test(tag)) return undefined;
  let canonical: string | undefined;
  try {
    canonical = Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
  // CLDR's macrolanguage aliases bring a script or region with them (`hbs` -> `sr-Latn`), which
  // the engines do not know (Apertium lists `hbs`, as the translation package keeps it): such a
  // tag keeps its own subtags, only in canonical case.
  if (canonical === undefined || canonical.split('-').length <= tag.split('-').length) return canonical;
  return tag
    .split('-')
    .map((subtag, at) =>
      at === 0
        ? subtag.toLowerCase()
        : /^[A-Za-z]{4}$/.test(subtag)
          ? subtag[0]!.toUpperCase() + subtag.slice(1).toLowerCase()
          : /^([A-Za-z]{2}|\d{3})$/.test(subtag)
            ? subtag.toUpperCase()
            : subtag.toLowerCase(),
    )
    .join('-');
}

/** A caption's track; a translation without a usable `ln` is no track at all (undefined). */
export function trackOf(caption: { label?: string; ln?: string }): string | undefined {
  if (caption.label !== TRANSLATION_LABEL) return ORIGINAL;
  return caption.ln === undefined ? undefined : canonicalTag(caption.ln);
}

/** A track as a client names it (`original` or a language tag), canonical; undefined when neither. */
export function parseTrack(value: string): string | undefined {
  return value === ORIGINAL ? ORIGINAL : canonicalTag(value);
}

/** Tracks in the order the API lists them: the original first, then by code. */
export function compareTracks(a: string, b: string): number {
  if (a === b) return 0;
  if (a === ORIGINAL) return -1;
  if (b === ORIGINAL) return 1;
  return a < b ? -1 : 1;
}
