/**
 * Where sentences end inside a caption's text. A caption is cut by time, not by grammar: it may
 * end one sentence, hold others, and begin the next ("budget. Next item"). Its text becomes
 * pieces, each ending a sentence (`end`) except perhaps the last. A full stop after a title or an
 * initial ("Mr.", "Dr.", "J.") does not end a sentence, nor one followed by a lower-case word.
 */

export interface Piece {
  text: string;
  /** The piece ends a sentence. */
  end: boolean;
}

/** A word that ends in sentence punctuation, closing quotes or brackets allowed after it. */
const TERMINAL = /[.?!…。？！]+["'”’»)\]]*$/u;
/** Terminal punctuation that a lower-case continuation turns into a pause ("well… maybe", "p.m. today"). */
const SOFT = /(\.|…)["'”’»)\]]*$/u;
/**
 * Titles and short forms whose full stop is no sentence end (lower case, without the stop). Not
 * "No." (number): "no." ends far more spoken sentences.
 */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'mx',
  'dr',
  'prof',
  'st',
  'sr',
  'jr',
  'mt',
  'rev',
  'hon',
  'cllr',
  'gen',
  'col',
  'capt',
  'lt',
  'sgt',
  'gov',
  'sen',
  'rep',
  'vs',
  'fig',
  'approx',
  'dept',
  'inc',
  'ltd',
  'co',
  'corp',
  'e.g',
  'i.e',
  'cf',
  'ca',
  'sra',
  'srta',
  'sres',
  'dra',
  'núm',
  'av',
  'ud',
  'uds',
]);

function endsSentence(word: string, next: string | undefined): boolean {
  if (!TERMINAL.test(word)) return false;
  const bare = word.replace(/["'”’»)\]]+$/u, '');
  if (bare.endsWith('.') && !bare.endsWith('..')) {
    const stem = bare.slice(0, -1).replace(/^["'“‘«([]+/u, '');
    if (ABBREVIATIONS.has(stem.toLowerCase())) return false;
    if (/^\p{Lu}$/u.test(stem)) return false; // an initial: "J. Okonkwo"
    // A dotted short form ("U.S.", "p.m.") ends a sentence only before a capital or at the end.
    if (/^(\p{L}\.)+\p{L}$/u.test(stem) && next !== undefined && !/^\p{Lu}/u.test(next)) return false;
  }
  if (next !== undefined && SOFT.test(word) && /^\p{Ll}/u.test(next)) return false;
  return true;
}

/** `text` as pieces; whitespace inside a piece becomes single spaces. */
export function splitSentences(text: string): Piece[] {
  const words = text.split(/\s+/u).filter((word) => word !== '');
  const pieces: Piece[] = [];
  let current: string[] = [];
  words.forEach((word, index) => {
    current.push(word);
    if (endsSentence(word, words[index + 1])) {
      pieces.push({ text: current.join(' '), end: true });
      current = [];
    }
  });
  if (current.length > 0) pieces.push({ text: current.join(' '), end: false });
  return pieces;
}
