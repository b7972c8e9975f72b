/**
 * Line shaping for the platforms' caption windows: words filled into lines of at most `width`
 * characters (a word longer than a line is cut), lines grouped into captions of `lines` lines.
 * YouTube shows two lines of up to 40 characters (Web Captioner's shaping), Zoom two of 32.
 * Characters are UTF-16 code units, the strictest count a platform may apply.
 */
export function wrapLines(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const pieces = cutWord(word, width);
    const rest = pieces.pop() ?? '';
    if (pieces.length > 0) {
      if (line) lines.push(line);
      lines.push(...pieces);
      line = '';
    }
    if (!rest) continue;
    if (line === '') line = rest;
    else if (line.length + 1 + rest.length <= width) line = `${line} ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** The caption as screens of at most `lines` lines of `width` characters, split at word boundaries. */
export function screensOf(text: string, width: number, lines = 2): string[][] {
  const all = wrapLines(text, width);
  const screens: string[][] = [];
  for (let i = 0; i < all.length; i += lines) screens.push(all.slice(i, i + lines));
  return screens;
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * A word cut into pieces of at most `width` code units, between user-perceived characters: a cut
 * inside a surrogate pair would send two lone halves (each a U+FFFD on the platform), one inside
 * an emoji sequence or before a combining mark would tear a character apart. Only a single
 * character longer than a line (a base with dozens of combining marks) is cut inside, between
 * code points.
 */
function cutWord(word: string, width: number): string[] {
  if (word.length <= width) return [word];
  const pieces: string[] = [];
  let piece = '';
  const add = (unit: string) => {
    if (piece.length + unit.length > width && piece !== '') {
      pieces.push(piece);
      piece = '';
    }
    piece += unit;
  };
  for (const { segment } of graphemes.segment(word)) {
    if (segment.length <= width) add(segment);
    else for (const codePoint of segment) add(codePoint);
  }
  if (piece !== '') pieces.push(piece);
  return pieces;
}
