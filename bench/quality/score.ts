/**
 * Word and character error rates with text normalization in the spirit of OpenAI Whisper's
 * normalizers (whisper/normalizers, MIT), written from their published rules, reduced:
 *
 * - every language (`BasicTextNormalizer`): NFKC, lower case, text in [brackets] and (parentheses)
 *   removed, symbols and punctuation replaced by spaces, spaces collapsed;
 * - English (`EnglishTextNormalizer`) also: fillers (uh, um, hmm, ...) dropped, titles spelled out
 *   (mr -> mister, ...), common contractions expanded, apostrophes of possessives removed.
 *   Not done: number and currency normalization, British->American spelling.
 *
 * Japanese, Chinese and Korean are scored by characters (CER, spaces removed), the rest by words.
 */

const FILLERS = new Set(['hmm', 'mm', 'mhm', 'mmm', 'uh', 'um', 'er', 'ah', 'huh']);
const TITLES: Record<string, string> = {
  mr: 'mister',
  mrs: 'missus',
  ms: 'miss',
  dr: 'doctor',
  prof: 'professor',
  st: 'saint',
  jr: 'junior',
  sr: 'senior',
};
const CONTRACTIONS: [RegExp, string][] = [
  [/\bwon't\b/g, 'will not'],
  [/\bcan't\b/g, 'can not'],
  [/\blet's\b/g, 'let us'],
  [/n't\b/g, ' not'],
  [/'re\b/g, ' are'],
  [/'ll\b/g, ' will'],
  [/'ve\b/g, ' have'],
  [/'m\b/g, ' am'],
  [/'d\b/g, ' would'],
];

export const CHARACTER_LANGUAGES = new Set(['ja', 'zh', 'ko', 'yue']);

function basic(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[[(][^\])]*[\])]/g, ' ')
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function normalize(text: string, language: string): string {
  if (language !== 'en') return basic(text);
  let out = text.normalize('NFKC').toLowerCase().replace(/[’‘]/g, "'");
  for (const [pattern, replacement] of CONTRACTIONS) out = out.replace(pattern, replacement);
  out = out.replace(/'s\b/g, 's');
  return basic(out)
    .split(' ')
    .filter((word) => word !== '' && !FILLERS.has(word))
    .map((word) => TITLES[word] ?? word)
    .join(' ');
}

/** Levenshtein distance between two token sequences. */
export function editDistance<T>(a: readonly T[], b: readonly T[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Error rate of `hypothesis` against `reference`: WER, or CER for ja/zh/ko. */
export function errorRate(reference: string, hypothesis: string, language: string): number {
  const split = (text: string) =>
    CHARACTER_LANGUAGES.has(language)
      ? [...normalize(text, language).replace(/\s/g, '')]
      : normalize(text, language).split(' ').filter(Boolean);
  const ref = split(reference);
  const hyp = split(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  return editDistance(ref, hyp) / ref.length;
}
