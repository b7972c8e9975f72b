import { describe, expect, it } from '@jest/globals';
import {
  CaptionFileError,
  captionFile,
  cuesOf,
  parseSrt,
  parseWebVtt,
  toSrt,
  toText,
  toWebVtt,
} from '../src/index.js';

const t0 = Date.UTC(2026, 10, 26, 18, 0, 0);

describe('cuesOf', () => {
  it('ends each cue where the next begins, held between the shortest and the longest', () => {
    const cues = cuesOf([
      { at: t0, text: 'one' },
      { at: t0 + 3000, text: 'two' },
      { at: t0 + 3400, text: 'three' },
      { at: t0 + 60_000, text: 'four' },
    ]);
    expect(cues).toEqual([
      { startMs: 0, endMs: 3000, text: 'one' },
      // The next caption came sooner than the shortest hold: it replaces this one, no overlap.
      { startMs: 3000, endMs: 3400, text: 'two' },
      { startMs: 3400, endMs: 10_400, text: 'three' },
      { startMs: 60_000, endMs: 67_000, text: 'four' },
    ]);
  });

  it('leaves empty captions out and counts from a given origin', () => {
    const cues = cuesOf(
      [
        { at: t0 + 500, text: ' ' },
        { at: t0 + 1000, text: 'only' },
      ],
      { originMs: t0, minMs: 2000, maxMs: 4000 },
    );
    expect(cues).toEqual([{ startMs: 1000, endMs: 5000, text: 'only' }]);
  });

  it('gives two captions of one millisecond a cue each that ends after it starts', () => {
    const cues = cuesOf([
      { at: t0, text: 'a' },
      { at: t0, text: 'b' },
    ]);
    expect(cues.every((cue) => cue.endMs > cue.startMs)).toBe(true);
  });
});

const cues = [
  { startMs: 0, endMs: 2500, text: 'Welcome, everyone.' },
  { startMs: 2500, endMs: 5000, text: 'Line one\n\nline two' },
  { startMs: 3_725_042, endMs: 3_726_000, text: 'a <b> & c --> d' },
];

describe('writers', () => {
  it('writes SRT with numbered cues and comma milliseconds', () => {
    expect(toSrt(cues)).toBe(
      '1\n00:00:00,000 --> 00:00:02,500\nWelcome, everyone.\n\n' +
        '2\n00:00:02,500 --> 00:00:05,000\nLine one\nline two\n\n' +
        '3\n01:02:05,042 --> 01:02:06,000\na <b> & c --> d\n',
    );
  });

  it('writes WebVTT with its header and escaped markup', () => {
    expect(toWebVtt(cues)).toBe(
      'WEBVTT\n\n' +
        '00:00:00.000 --> 00:00:02.500\nWelcome, everyone.\n\n' +
        '00:00:02.500 --> 00:00:05.000\nLine one\nline two\n\n' +
        '01:02:05.042 --> 01:02:06.000\na &lt;b&gt; &amp; c --&gt; d\n',
    );
  });

  it('writes text with a time per caption and its further lines indented', () => {
    expect(toText(cues.slice(0, 2))).toBe(
      '[00:00:00] Welcome, everyone.\n[00:00:02] Line one\n           line two\n',
    );
  });

  it('writes an empty session as a valid file', () => {
    expect(parseWebVtt(toWebVtt([]))).toEqual([]);
    expect(parseSrt(toSrt([]))).toEqual([]);
  });
});

describe('parsers', () => {
  it('read back what the writers wrote', () => {
    const folded = cues.map((cue) => ({ ...cue, text: cue.text.replace('\n\n', '\n') }));
    expect(parseSrt(captionFile(cues, 'srt'))).toEqual(folded);
    expect(parseWebVtt(captionFile(cues, 'vtt'))).toEqual(folded);
  });

  it('accept cue identifiers and notes in WebVTT', () => {
    expect(parseWebVtt('WEBVTT - live\n\nNOTE hi\n\nc1\n00:01.000 --> 00:02.000\nhi\n')).toEqual([
      { startMs: 1000, endMs: 2000, text: 'hi' },
    ]);
  });

  it.each([
    ['no header', '00:00:00.000 --> 00:00:01.000\nx\n', 'line 1'],
    ['a bad timing line', 'WEBVTT\n\n00:00:00,000 --> 00:00:01,000\nx\n', 'line 3'],
    ['a cue that ends before it starts', 'WEBVTT\n\n00:00:02.000 --> 00:00:01.000\nx\n', 'ends before'],
    [
      'cues out of order',
      'WEBVTT\n\n00:00:02.000 --> 00:00:03.000\nx\n\n00:00:01.000 --> 00:00:03.000\ny\n',
      'before the previous',
    ],
    ['a cue without text', 'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n', 'no text'],
  ])('refuse WebVTT with %s', (_name, text, message) => {
    expect(() => parseWebVtt(text)).toThrow(CaptionFileError);
    expect(() => parseWebVtt(text)).toThrow(message);
  });

  it.each([
    ['a wrong cue number', '2\n00:00:00,000 --> 00:00:01,000\nx\n', 'cue number 1'],
    ['dot milliseconds', '1\n00:00:00.000 --> 00:00:01.000\nx\n', 'timing line'],
  ])('refuse SRT with %s', (_name, text, message) => {
    expect(() => parseSrt(text)).toThrow(message);
  });
});
