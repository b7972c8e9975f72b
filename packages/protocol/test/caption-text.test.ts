import { describe, expect, it } from '@jest/globals';
import { captionTextFault, cleanCaptionText, relayCaptionSchema, relayPublishSchema } from '../src/index.js';

const DELIVERY = { client: 'publisher_00000001', sequence: 1 };

describe('the caption text rule', () => {
  it.each([
    ['a NUL', 'a\u0000b', 'U+0000', 1],
    ['a C0 control', '\u0001', 'U+0001', 0],
    ['a vertical tab', 'a\u000bb', 'U+000B', 1],
    ['an escape', 'x\u001b', 'U+001B', 1],
    ['DEL', '\u007f', 'U+007F', 0],
    ['a C1 control', 'ab\u009b', 'U+009B', 2],
    ['a lone high surrogate', 'a\ud83d', 'U+D83D', 1],
    ['a lone low surrogate', '\ude00', 'U+DE00', 0],
    ['U+FFFE', '\ufffe', 'U+FFFE', 0],
    ['U+FFFF', '\uffff', 'U+FFFF', 0],
    ['U+FDD0', '\ufdd0', 'U+FDD0', 0],
    ['U+1FFFE', '\u{1fffe}', 'U+1FFFE', 0],
    ['U+10FFFF', '😀\u{10ffff}', 'U+10FFFF', 2],
  ])('finds %s', (_what, text, codePoint, index) => {
    expect(captionTextFault(text)).toEqual({ codePoint, index });
  });

  it('lets tabs, line breaks, paired surrogates and the rest of Unicode through', () => {
    for (const text of [
      '',
      'a\tb\nc\r\n',
      '😀 \u{1f1eb}\u{1f1f7}',
      '\u200f\u202e\u2028\u2029',
      '\ufffd\ufeff\u00a0',
      'e\u0301',
    ])
      expect(captionTextFault(text)).toBeUndefined();
  });

  it('cleans: line-like controls become a line feed, lone surrogates U+FFFD, the rest goes', () => {
    expect(cleanCaptionText('a\u0000b\u0007c\u007fd\u009fe')).toBe('abcde');
    expect(cleanCaptionText('one\u000btwo\u000cthree\u0085four')).toBe('one\ntwo\nthree\nfour');
    expect(cleanCaptionText('x\ud83dy\ude00z')).toBe('x\ufffdy\ufffdz');
    expect(cleanCaptionText('\ufffe\uffff\ufdd0\u{10ffff}ok')).toBe('ok');
    expect(cleanCaptionText('keep\ttab\r\nand 😀')).toBe('keep\ttab\r\nand 😀');
  });

  it('cleans into text the rule accepts, never longer (random strings of every code unit)', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 500; round++) {
      const units = Array.from({ length: Math.floor(random() * 40) }, () =>
        random() < 0.3 ? Math.floor(random() * 0xa0) : Math.floor(random() * 0x10000),
      );
      const text = String.fromCharCode(...units);
      const clean = cleanCaptionText(text);
      expect(captionTextFault(clean)).toBeUndefined();
      expect(clean.length).toBeLessThanOrEqual(text.length);
      expect(Buffer.from(clean).toString()).toBe(clean); // well formed: UTF-8 round trip
      expect(cleanCaptionText(clean)).toBe(clean);
    }
  });
});

describe('the relay frames and the text rule', () => {
  it('refuse a publish that breaks it, naming the field', () => {
    for (const field of ['final', 'label', 'ln', 'id'] as const) {
      const frame = { msg: true, final: 'ok', id: 1, delivery: DELIVERY, [field]: 'a\u0000' };
      const issues = relayPublishSchema.safeParse(frame).error?.issues ?? [];
      expect(issues.map((issue) => issue.path[0])).toContain(field);
    }
  });

  it('let a reader take a caption that breaks it (a relay of an older version retained it)', () => {
    const caption = { msg: true, final: 'a\u0000', id: 'b\u0000', relay: { epoch: 'e', sequence: 1 } };
    expect(relayCaptionSchema.safeParse(caption).success).toBe(true);
  });
});
