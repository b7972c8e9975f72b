/**
 * The caption text rule: which characters a caption (its text, and its `id`, `label` and `ln`
 * strings) may carry on its way to the stores and platforms downstream. Written once here: the
 * relay refuses a publish that breaks it, the publishers we ship clean before they publish, and the
 * outputs service cleans what it reads (a relay of an older version, a history from before).
 *
 * Refused: control characters (C0 but tab, line feed and carriage return; DEL; C1), lone
 * surrogates and Unicode noncharacters (U+FDD0-U+FDEF, U+FFFE/U+FFFF of every plane).
 * PostgreSQL cannot store a NUL in text (SQLSTATE 22021); a lone surrogate has no UTF-8 form (it
 * reaches a store or platform as U+FFFD, or breaks a strict decoder); XML 1.0 (which caption
 * formats such as TTML and platforms' own pipelines use) refuses controls and U+FFFE/U+FFFF; and
 * no caption is better for any of them. Line breaks and tabs stay: captions carry lines.
 *
 * Plain regular expressions, no zod: a page that cleans pulls in nothing else.
 */

const DISALLOWED = String.raw`(?![\t\n\r])[\p{Cc}\p{Cs}\p{Noncharacter_Code_Point}]`;
const FIRST = new RegExp(DISALLOWED, 'u');
const EVERY = new RegExp(DISALLOWED, 'gu');
/** Controls that end a line in some systems (VT, FF, NEL): cleaned to a line feed, not removed. */
const LINE_LIKE = /[\v\f\u0085]/gu;
const LONE_SURROGATE = /\p{Cs}/gu;

/** What the rule refuses in a string, for an error message that names it. */
export interface CaptionTextFault {
  /** Index (UTF-16 code units) of the first refused character. */
  index: number;
  /** That character as `U+XXXX`. */
  codePoint: string;
}

/** The first character of `text` that the rule refuses; undefined when `text` is clean. */
export function captionTextFault(text: string): CaptionTextFault | undefined {
  const match = FIRST.exec(text);
  if (!match) return undefined;
  const code = match[0].codePointAt(0) ?? 0;
  return { index: match.index, codePoint: `U+${code.toString(16).toUpperCase().padStart(4, '0')}` };
}

/**
 * `text` made clean: VT, FF and NEL become a line feed, a lone surrogate becomes U+FFFD (a trace
 * that something was there), the other refused characters are removed. Never longer than `text`;
 * a clean string comes back unchanged (the same string).
 */
export function cleanCaptionText(text: string): string {
  if (!FIRST.test(text)) return text;
  return text.replace(LINE_LIKE, '\n').replace(LONE_SURROGATE, '\uFFFD').replace(EVERY, '');
}

/** A short description of the rule, for error messages and documents. */
export const CAPTION_TEXT_RULE =
  'no control characters but tab and line breaks, no lone surrogates or noncharacters';
