/**
 * Caption text shaped for CEA-608 through OBS (pure). A 608 screen row holds 32 characters; OBS
 * keeps at most 128 bytes of one `SendStreamCaption` text and cuts the rest silently, and it shows
 * each text as one pop-on caption. So a caption is wrapped at word boundaries into rows of at most
 * 32 characters, and the rows are grouped into successive 608 captions of at most `rows` rows and
 * 128 bytes, each held long enough to be read. Characters 608 lacks are replaced first.
 */

/** Characters in one 608 screen row. */
export const CEA608_COLUMNS = 32;
/** OBS's buffer for one caption text (libobs CAPTION_LINE_BYTES: 4 x 32). */
export const OBS_CAPTION_BYTES = 128;
/** Rows per 608 caption: two rows cover little of the picture and read in one glance. */
export const CEA608_ROWS = 2;

/** Reading speed the hold time is sized for (a common subtitle guideline: 15-17 characters/s). */
const READING_MS_PER_CHAR = 60;
const MIN_HOLD_MS = 1500;
const MAX_HOLD_MS = 4000;
/** With more captions than this waiting, each is held for less so the captions catch up with speech. */
const BACKLOG_LIMIT = 2;
const CATCH_UP_MIN_MS = 1000;

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

/**
 * Every character OBS's 608 encoder (libcaption's charmap: the basic, special and extended Western
 * European sets) can write. It stops a caption at the first other character, silently: seen with
 * the real OBS, "dots… ok" came out as "dots" and "5€ and more" as "5".
 */
const CEA608_CHARACTERS = new Set(
  Array.from(
    ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_abcdefghijklmnopqrstuvwxyz{|}~' +
      'áéíóúç÷Ññ█®°½¿™¢£♪àèâêîôû' +
      'ÁÉÓÚÜü‘’¡—©℠•“”ÀÂÇÈÊËëÎÏïÔÙùÛ«»ÃãÍÌìÒòÕõÄäÖößØø¥¤¦Åå┌┐└┘',
  ),
);

/** Characters common in transcripts that 608 lacks, written with ones it has. */
const CEA608_REPLACEMENTS: Record<string, string> = {
  '…': '...',
  '–': '-',
  '‐': '-',
  '‑': '-',
  '‒': '-',
  '−': '-',
  '―': '—',
  '‚': ',',
  '„': '"',
  '‟': '"',
  '′': "'",
  '″': '"',
  '`': "'",
  '´': "'",
  '‹': '<',
  '›': '>',
  '×': 'x',
  '€': 'EUR',
  œ: 'oe',
  Œ: 'OE',
  // Catalan's ela geminada (col·legi): written with a full stop where the middle dot is missing.
  '·': '.',
  æ: 'ae',
  Æ: 'AE',
};

/** One character as 608 can carry it: itself, a replacement, its letter without accents, or nothing. */
function cea608Char(char: string): string {
  if (CEA608_CHARACTERS.has(char)) return char;
  const replacement = CEA608_REPLACEMENTS[char];
  if (replacement !== undefined) return replacement;
  const base = char.normalize('NFD').replace(/\p{M}+/gu, '');
  return base !== char && Array.from(base).every((part) => CEA608_CHARACTERS.has(part)) ? base : '';
}

/**
 * The text as 608 can carry it: whitespace and control characters become single spaces (a tab
 * would also end the caption), other characters outside 608's sets are replaced or dropped (emoji,
 * non-Latin scripts: 608 has no code for them).
 */
export function cea608Text(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const spaced = text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, ' ');
  return Array.from(spaced, cea608Char).join('').replace(/ {2,}/g, ' ').trim();
}

/** Splits a word longer than a row into row-sized pieces (by characters, not UTF-16 units). */
function pieces(word: string, columns: number): string[] {
  const chars = Array.from(word);
  const out: string[] = [];
  for (let start = 0; start < chars.length; start += columns)
    out.push(chars.slice(start, start + columns).join(''));
  return out;
}

/** Rows of at most `columns` characters, broken at spaces; a longer word is split. */
export function wrapRows(text: string, columns = CEA608_COLUMNS): string[] {
  const rows: string[] = [];
  let row = '';
  for (const word of cea608Text(text).split(' ')) {
    for (const piece of pieces(word, columns)) {
      const joined = row ? `${row} ${piece}` : piece;
      if (Array.from(joined).length <= columns) {
        row = joined;
      } else {
        if (row) rows.push(row);
        row = piece;
      }
    }
  }
  if (row) rows.push(row);
  return rows;
}

/** Cuts a row to at most `maxBytes` UTF-8 bytes without splitting a character. */
function cutToBytes(row: string, maxBytes: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const char of row) {
    if (bytes(current + char) > maxBytes) {
      out.push(current);
      current = '';
    }
    current += char;
  }
  if (current) out.push(current);
  return out;
}

export interface ChunkOptions {
  rows?: number;
  columns?: number;
  maxBytes?: number;
}

/**
 * The successive 608 captions one caption becomes: rows joined with `\n` (OBS starts a new row
 * there), at most `rows` rows and `maxBytes` bytes each. Empty text gives no chunk.
 */
export function captionChunks(text: string, options: ChunkOptions = {}): string[] {
  const maxRows = options.rows ?? CEA608_ROWS;
  const maxBytes = options.maxBytes ?? OBS_CAPTION_BYTES;
  const rows = wrapRows(text, options.columns ?? CEA608_COLUMNS).flatMap((row) => cutToBytes(row, maxBytes));
  const chunks: string[] = [];
  let chunk: string[] = [];
  for (const row of rows) {
    const candidate = [...chunk, row];
    if (chunk.length > 0 && (candidate.length > maxRows || bytes(candidate.join('\n')) > maxBytes)) {
      chunks.push(chunk.join('\n'));
      chunk = [row];
    } else {
      chunk = candidate;
    }
  }
  if (chunk.length > 0) chunks.push(chunk.join('\n'));
  return chunks;
}

/**
 * How long a 608 caption stays before the next one replaces it: its reading time within
 * 1.5-4 s; with more than two captions waiting, half that (at least 1 s) so that the captions
 * catch up with the speaker instead of falling further behind.
 */
export function holdMs(chunk: string, waiting: number): number {
  const reading = Math.min(
    MAX_HOLD_MS,
    Math.max(MIN_HOLD_MS, Array.from(chunk).length * READING_MS_PER_CHAR),
  );
  return waiting > BACKLOG_LIMIT ? Math.max(CATCH_UP_MIN_MS, reading / 2) : reading;
}
