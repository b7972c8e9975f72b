/**
 * PostgreSQL's `english` text search stop words (snowball's list, `english.stop`): to_tsquery
 * drops them, so a search made only of them has no full-text query left.
 */
const stopWords = new Set(
  `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her
  hers herself it its itself they them their theirs themselves what which who whom this that these
  those am is are was were be been being have has had having do does did doing a an the and but if
  or because as until while of at by for with about against between into through during before after
  above below to from up down in out on off over under again further then once here there when where
  why how all any both each few more most other some such no nor not only own same so than too very s
  t can will just don should now`.split(/\s+/),
);

/** An event search: full text (indexed, prefix-matching words) or a literal substring. */
export type SearchPlan = { kind: 'fulltext'; query: string } | { kind: 'substring'; text: string };

/**
 * Full text (`jazz fest` -> `jazz:* & fest:*`) when the search has a word the English dictionary
 * keeps; a search of stop words only (`the`) or of punctuation only (`!!`) would match nothing or
 * everything there, so it is matched as a case-insensitive substring. Decided here, without asking
 * PostgreSQL (`numnode`), so that a search is one statement.
 */
export function searchPlan(search: string): SearchPlan {
  const text = search.trim();
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.some((word) => !stopWords.has(word))) {
    return { kind: 'fulltext', query: words.map((word) => `${word}:*`).join(' & ') };
  }
  return { kind: 'substring', text };
}
