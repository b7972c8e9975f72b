/**
 * Repetition loops: Whisper stuck on a phrase repeats it until its token limit ("Thank you Thank
 * you Thank you ..."). A run of the same n-gram repeated back to back is cut to its first
 * occurrence; what follows the run stays.
 */
import { deflateSync } from 'node:zlib';

export interface LoopToken {
  text: string;
}

/** Longest n-gram (in words) looked for. */
const MAX_NGRAM = 12;

const wordKey = (text: string): string =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** Words as [first token, last token + 1) ranges: a token starting with whitespace starts a word. */
function wordRanges(tokens: readonly LoopToken[]): Array<{ from: number; to: number; key: string }> {
  const words: Array<{ from: number; to: number; key: string }> = [];
  tokens.forEach((token, i) => {
    const last = words.at(-1);
    if (last === undefined || /^\s/.test(token.text)) words.push({ from: i, to: i + 1, key: '' });
    else last.to = i + 1;
  });
  for (const word of words) {
    word.key = wordKey(
      tokens
        .slice(word.from, word.to)
        .map((t) => t.text)
        .join(''),
    );
  }
  return words.filter((word) => word.key !== '' || word.to > word.from);
}

/**
 * The tokens with every loop cut (`cuts` counts them): an n-gram of n >= 2 words repeated
 * `repeats` times in a row, or one word repeated 2 x `repeats` times, keeps its first occurrence.
 */
export function cutLoops<T extends LoopToken>(
  tokens: readonly T[],
  repeats: number,
): { tokens: T[]; cuts: number } {
  const words = wordRanges(tokens);
  const keep = new Array<boolean>(tokens.length).fill(true);
  let cuts = 0;
  let i = 0;
  while (i < words.length) {
    let cut: { n: number; count: number } | undefined;
    for (let n = 1; n <= MAX_NGRAM && i + 2 * n <= words.length; n++) {
      let count = 1;
      while (sameRun(words, i, i + count * n, n)) count++;
      const needed = n === 1 ? 2 * repeats : repeats;
      if (count >= needed) {
        cut = { n, count };
        break;
      }
    }
    if (!cut) {
      i++;
      continue;
    }
    // The run goes on into a partial occurrence where the decoder hit its token limit.
    let end = i + cut.n * cut.count;
    for (let k = 0; k < cut.n - 1 && words[end]?.key === words[i + k]?.key; k++) end++;
    const from = words[i + cut.n]?.from ?? tokens.length;
    const to = words[end - 1]?.to ?? tokens.length;
    for (let t = from; t < to; t++) keep[t] = false;
    cuts++;
    i = end;
  }
  return { tokens: tokens.filter((_, t) => keep[t]), cuts };
}

function sameRun(words: ReadonlyArray<{ key: string }>, a: number, b: number, n: number): boolean {
  if (b + n > words.length) return false;
  for (let k = 0; k < n; k++) if (words[a + k]?.key !== words[b + k]?.key) return false;
  return words[a]?.key !== '';
}

/** UTF-8 bytes over zlib-compressed bytes, as OpenAI Whisper measures repetitiveness. */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return 0;
  return bytes.length / deflateSync(bytes).length;
}

/** Whether two texts are the same words (case and punctuation aside). */
export function sameWords(a: string, b: string): boolean {
  const words = (text: string) => text.split(/\s+/).map(wordKey).filter(Boolean).join(' ');
  return words(a) === words(b);
}
