/**
 * Which words of a sentence's translation belong to which caption. The sentence was captioned in
 * pieces; each piece already shows a translation (its share). The new translation of the whole
 * sentence is aligned to those shares word by word (longest common subsequence, ignoring case and
 * punctuation), and each piece takes the new words up to its last aligned one: "El consejo" then
 * "se reunió el martes." A piece with nothing to align (new, or just corrected) takes the words
 * before the next aligned piece's first.
 */

export const words = (text: string): string[] => text.split(/\s+/u).filter((word) => word !== '');

const key = (word: string): string => {
  const bare = word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
  return bare === '' ? word : bare;
};

/** For each word of `a`, the index of the word of `b` it is aligned with in a longest common subsequence, or -1. */
export function alignWords(a: string[], b: string[]): number[] {
  const ka = a.map(key);
  const kb = b.map(key);
  const width = kb.length + 1;
  const table = new Uint32Array((ka.length + 1) * width);
  for (let i = ka.length - 1; i >= 0; i -= 1)
    for (let j = kb.length - 1; j >= 0; j -= 1)
      table[i * width + j] =
        ka[i] === kb[j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
  const match = new Array<number>(ka.length).fill(-1);
  let i = 0;
  let j = 0;
  while (i < ka.length && j < kb.length) {
    if (ka[i] === kb[j]) {
      match[i] = j;
      i += 1;
      j += 1;
    } else if (table[(i + 1) * width + j]! >= table[i * width + j + 1]!) i += 1;
    else j += 1;
  }
  return match;
}

/** How far from its expected place (by source words) an aligned word may be: a quarter of the sentence, at least 3 words. */
const slackOf = (length: number) => Math.max(3, Math.ceil(length * 0.25));

/**
 * `translation` (words) split into one share per piece. `anchors[i]`: the words piece i shows now,
 * or undefined for a piece with none to keep; `sourceWords[i]`: its words in the source. An
 * aligned word counts only near where the piece's source words would put it (a piece's "el" must
 * not claim an "el" at the other end of the sentence); a piece left without one ends where its
 * source words would put it. Every piece with source words gets a word when there are enough.
 * The shares, concatenated, are the translation.
 */
export function splitShares(
  translation: string[],
  anchors: (string[] | undefined)[],
  sourceWords: number[],
): string[][] {
  const n = anchors.length;
  const length = translation.length;
  const weights = sourceWords.some((count) => count > 0) ? sourceWords : sourceWords.map(() => 1);
  const total = weights.reduce((sum, count) => sum + count, 0);
  const slack = slackOf(length);
  const expectedEnd: number[] = [];
  let cumulative = 0;
  for (const weight of weights) {
    cumulative += weight;
    expectedEnd.push(Math.round((length * cumulative) / total));
  }
  const owner: number[] = [];
  const flat: string[] = [];
  anchors.forEach((anchor, piece) => {
    for (const word of anchor ?? []) {
      owner.push(piece);
      flat.push(word);
    }
  });
  const first = new Array<number>(n).fill(-1);
  const last = new Array<number>(n).fill(-1);
  alignWords(flat, translation).forEach((at, index) => {
    if (at < 0) return;
    const piece = owner[index]!;
    const start = piece > 0 ? expectedEnd[piece - 1]! : 0;
    if (at < start - slack || at >= expectedEnd[piece]! + slack) return;
    if (first[piece]! < 0) first[piece] = at;
    last[piece] = at;
  });
  const ends = new Array<number>(n).fill(0);
  let previous = 0;
  for (let piece = 0; piece < n; piece += 1) {
    let end: number;
    if (piece === n - 1) end = length;
    else if (last[piece]! >= 0) end = last[piece]! + 1;
    else if (anchors[piece] === undefined) {
      // New or corrected: the words before the next piece that kept its own.
      const next = first.findIndex((at, index) => index > piece && at >= 0);
      end = next >= 0 ? first[next]! : expectedEnd[piece]!;
    } else end = expectedEnd[piece]!;
    previous = Math.max(previous, end);
    ends[piece] = previous;
  }
  // Each piece with source words gets a word when there are enough: forward, then backward.
  const need = sourceWords.map((count) => (count > 0 ? 1 : 0));
  for (let piece = 0; piece < n; piece += 1)
    ends[piece] = Math.max(ends[piece]!, (piece > 0 ? ends[piece - 1]! : 0) + need[piece]!);
  ends[n - 1] = length;
  for (let piece = n - 2; piece >= 0; piece -= 1)
    ends[piece] = Math.max(0, Math.min(ends[piece]!, ends[piece + 1]! - need[piece + 1]!));
  for (let piece = 1; piece < n; piece += 1) ends[piece] = Math.max(ends[piece]!, ends[piece - 1]!);
  return ends.map((end, piece) => translation.slice(piece > 0 ? ends[piece - 1]! : 0, end));
}

/**
 * The words of an open sentence's translation that the pieces before the newest do not show yet:
 * those after the last word aligned with what they show (near where their share of the source
 * puts it); failing that (the engine moved the new words before old ones: "the red" -> "el rojo",
 * "the red car" -> "el coche rojo"), every word not aligned; failing that, the last word.
 */
export function unshownWords(translation: string[], shown: string[], shownShare: number): string[] {
  if (translation.length === 0) return [];
  const limit = Math.round(translation.length * shownShare) + slackOf(translation.length);
  const aligned = alignWords(shown, translation).filter((at) => at >= 0 && at < limit);
  const lastAligned = Math.max(-1, ...aligned);
  const after = translation.slice(lastAligned + 1);
  if (after.length > 0) return after;
  const taken = new Set(aligned);
  const unaligned = translation.filter((_, index) => !taken.has(index));
  return unaligned.length > 0 ? unaligned : translation.slice(-1);
}
