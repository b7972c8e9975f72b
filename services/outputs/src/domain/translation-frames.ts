/**
 * The frames the translation stage publishes into the output room (relay protocol 2): a
 * translation is `final` only, labelled `translation`, with the target as `ln` and the original's
 * `id`; a clear is an empty final with `c`. An engine's text is made safe to carry first: a frame
 * the relay refuses would close the room's writer and stall every track.
 */
import { RELAY_TEXT_MAX } from '@live-captions/protocol';
import { TRANSLATION_LABEL } from './tracks.js';

export interface TranslationFrame {
  final: string;
  id: string | number;
  label: typeof TRANSLATION_LABEL;
  ln: string;
  c?: true;
}

/**
 * Bytes the text may take in the frame's JSON: a frame stays within 8 KiB (the relay's default
 * before it became 16 KiB, so a relay still configured that low takes it), as the rest of the
 * frame (id up to 128 characters, delivery identity, fields) stays under 1 KiB.
 */
export const TEXT_JSON_BYTES_MAX = 7 * 1024;
const ELLIPSIS = '…';
const utf8 = new TextEncoder();

/**
 * The text without what no caption should carry (C0 controls but line breaks and tabs, DEL, lone
 * surrogates), at most RELAY_TEXT_MAX characters and TEXT_JSON_BYTES_MAX bytes as JSON, cut at a
 * word boundary with an ellipsis when it had to be shortened.
 */
export function carriableText(text: string): string {
  const clean = text
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .replace(/\r\n?/g, '\n')
    // A lone surrogate (half of a pair) cannot be stored or encoded: the replacement character.
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  if (fits(clean)) return clean;
  // Binary search on code points for the longest prefix that fits with the ellipsis.
  const points = [...clean];
  let low = 0;
  let high = points.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(points.slice(0, mid).join('') + ELLIPSIS)) low = mid;
    else high = mid - 1;
  }
  let cut = points.slice(0, low).join('');
  const space = cut.search(/\s\S*$/);
  if (space > cut.length * 0.8) cut = cut.slice(0, space);
  return `${cut.trimEnd()}${ELLIPSIS}`;
}

function fits(text: string): boolean {
  return text.length <= RELAY_TEXT_MAX && utf8.encode(JSON.stringify(text)).length <= TEXT_JSON_BYTES_MAX;
}

export function translationFrame(id: string | number, text: string, target: string): TranslationFrame {
  return { final: carriableText(text), id, label: TRANSLATION_LABEL, ln: target };
}

export function clearFrame(id: string | number, target: string): TranslationFrame {
  return { final: '', id, label: TRANSLATION_LABEL, ln: target, c: true };
}
