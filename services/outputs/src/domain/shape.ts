/**
 * Line shaping for the platforms' caption windows: words filled into lines of at most `width`
 * characters (a word longer than a line is cut), lines grouped into captions of `lines` lines.
 * YouTube shows two lines of up to 40 characters (Web Captioner's shaping), Zoom two of 32.
 */
export function wrapLines(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    let rest = word;
    while (rest.length > width) {
      if (line) lines.push(line);
      lines.push(rest.slice(0, width));
      rest = rest.slice(width);
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
