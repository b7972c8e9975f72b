/**
 * The room's vocabulary survives translation: before a call each occurrence of a term becomes a
 * placeholder token the engines leave alone, and after it the token becomes the term again, as
 * it was written in the caption. The token is an unknown upper-case word with a digit
 * (`ZQX1Q`): Apertium passes unknown words through (measured: "Grace Hall" alone becomes "Sala de
 * Gracia", `ZQX1Q` stays, in the position and with the case effects an unknown name such as
 * "Okonkwo" gets); numbers alone are no good, as engines reformat them (DeepL writes 1234 as
 * "1.234" in Spanish). Neural engines usually copy such tokens; one they drop loses its term.
 */

const TOKEN = /ZQX(\d+)Q/giu;

function escapeTerm(term: string): string {
  return term
    .trim()
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\s+/gu, '\\s+');
}

export interface ProtectedTexts {
  texts: string[];
  context?: string;
  /** A translation with the terms back in place of their tokens. */
  restore(text: string): string;
}

/** `texts` (and `context`) with every term of `keep` (whole words, any letter case) as a placeholder. */
export function protectTerms(texts: string[], keep: readonly string[], context?: string): ProtectedTexts {
  const terms = [...new Set(keep.map((term) => term.trim()).filter((term) => term !== ''))].sort(
    (a, b) => b.length - a.length,
  );
  if (terms.length === 0)
    return { texts, ...(context !== undefined ? { context } : {}), restore: (text) => text };
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${terms.map(escapeTerm).join('|')})(?![\\p{L}\\p{N}])`,
    'giu',
  );
  const surfaces: string[] = [];
  const protect = (text: string) =>
    text.replace(pattern, (found) => {
      let index = surfaces.indexOf(found);
      if (index < 0) index = surfaces.push(found) - 1;
      return `ZQX${index + 1}Q`;
    });
  const protectedTexts = texts.map(protect);
  const protectedContext = context !== undefined ? protect(context) : undefined;
  return {
    texts: protectedTexts,
    ...(protectedContext !== undefined ? { context: protectedContext } : {}),
    restore: (text) => text.replace(TOKEN, (token, index: string) => surfaces[Number(index) - 1] ?? token),
  };
}
