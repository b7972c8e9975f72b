/**
 * Hostile caption texts from a seed, for the fuzz suite: astral characters, combining marks,
 * right-to-left script and marks, lone surrogates, C0/C1 controls, NUL, noncharacters, and
 * 4,000-character captions. The same seed gives the same texts, so that a failing run can be
 * replayed.
 */
import { cleanCaptionText } from '@live-captions/protocol';

/** mulberry32: a small seeded generator, so that a failing run can be replayed from its seed. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface HostileText {
  /** In [0, 1). */
  random(): number;
  /** In [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** `length` characters or a few more, drawn from `pools` (every kind by default). */
  randomText(length: number, pools?: string[]): string;
  /** 4,000 characters whose frame still fits the relay's default 8 KiB frame. */
  longText(): string;
}

export function hostileText(seed: number): HostileText {
  const random = generator(seed);
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  const from = (low: number, high: number) => () => String.fromCodePoint(int(low, high));

  /** Kinds of characters; `=` and digits stay out of the plain ones (the Zoom stand-in reads a
   * body like `a=b` as form-encoded and a leading timestamp as a YouTube block: its heuristics). */
  const POOLS: Record<string, () => string> = {
    ascii: () =>
      pick([...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.,;:!?\'"()[]{}<>/\\@#$%^&*_+~`|-']),
    space: () => pick([' ', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2028', '\u2029']),
    latin: from(0xc0, 0x24f),
    combining: from(0x300, 0x36f),
    hebrew: from(0x5d0, 0x5ea),
    arabic: from(0x621, 0x64a),
    bidi: () =>
      pick(['\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2069']),
    invisible: () => pick(['\u200b', '\u200c', '\u200d', '\ufeff', '\u00ad', '\u2060']),
    cjk: from(0x4e00, 0x9fff),
    emoji: from(0x1f300, 0x1faff),
    astral: () => pick([from(0x1d400, 0x1d7ff), from(0x20000, 0x2a6df), from(0x10000, 0x1007f)])(),
    family: () => '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}\u200d\u{1f466}',
    flag: () =>
      pick([
        '\u{1f1fa}\u{1f1e6}',
        '\u{1f1ea}\u{1f1f8}',
        '\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}',
      ]),
    loneSurrogate: from(0xd800, 0xdfff),
    c0: from(0x0, 0x1f),
    nul: () => '\u0000',
    c1: from(0x7f, 0x9f),
    nonchar: () => pick(['\ufffe', '\uffff', '\ufdd0', '\ufdef', '\u{1fffe}', '\u{10ffff}']),
    zalgo: () => `a${Array.from({ length: int(20, 60) }, from(0x300, 0x36f)).join('')}`,
  };
  const POOL_NAMES = Object.keys(POOLS);

  function randomText(length: number, pools = POOL_NAMES): string {
    let text = '';
    while (text.length < length) text += (POOLS[pick(pools)] as () => string)();
    return text;
  }

  /**
   * 4,000 characters (the relay's longest caption) whose frame still fits the relay's default
   * 8 KiB frame: mostly Latin words with some of everything else.
   */
  function longText(): string {
    for (;;) {
      let text = '';
      while (text.length < 4000)
        text += random() < 0.85 ? `${randomText(int(2, 9), ['ascii', 'latin'])} ` : randomText(int(1, 4));
      text = text.slice(0, 4000);
      // A lone surrogate may be what the cut left at the end: fine, that is poison too.
      if (Buffer.byteLength(JSON.stringify(cleanCaptionText(text))) < 7600) return text;
    }
  }
  return { random, int, pick, randomText, longText };
}
