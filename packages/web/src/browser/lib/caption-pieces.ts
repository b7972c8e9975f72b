/**
 * Text longer than the relay takes (`RELAY_TEXT_MAX`, the relay's own limit) is cut into pieces
 * before it is published, at word boundaries where there are any, so that the relay never refuses
 * a caption (it closes the connection on one) and nothing typed is lost. Line breaks are kept.
 */
import { RELAY_TEXT_MAX } from '@live-captions/protocol';

export function captionPieces(text: string, max = RELAY_TEXT_MAX): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    // The last whitespace that leaves a piece of at most `max` characters; none: a hard cut.
    const window = rest.slice(0, max + 1);
    const breakAt = Math.max(window.lastIndexOf(' '), window.lastIndexOf('\n'), window.lastIndexOf('\t'));
    const cut = breakAt > 0 ? breakAt : max;
    pieces.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest) pieces.push(rest);
  return pieces;
}
