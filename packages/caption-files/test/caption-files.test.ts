import { describe, expect, it } from '@jest/globals';
import { ffprobeCueCount } from '@live-captions/test-services';
import {
  CaptionFileError,
  captionFile,
  cuesOf,
  MAX_CUE_MS,
  MIN_CUE_MS,
  parseSrt,
  parseWebVtt,
  toSrt,
  toText,
  toWebVtt,
} from '../src/index.js';

const t0 = Date.UTC(2026, 10, 26, 18, 0, 0);

describe('cuesOf', () => {
  it('ends each cue where the next begins, at most the longest', () => {
    const cues = cuesOf([
      { at: t0, text: 'one' },
      { at: t0 + 3000, text: 'two' },
      { at: t0 + 4200, text: 'three' },
      { at: t0 + 60_000, text: 'four' },
    ]);
    expect(cues).toEqual([
      { startMs: 0, endMs: 3000, text: 'one' },
      { startMs: 3000, endMs: 4200, text: 'two' },
      { startMs: 4200, endMs: 11_200, text: 'three' },
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

  it('spreads a burst so that no cue is shorter than the minimum, and catches up at a pause', () => {
    // A timed queue released at once by a switch to live mode, then a publisher's backlog after an
    // outage: captions 0-60 ms apart.
    const at = [0, 1, 2, 54, 5_000, 5_010, 5_020, 20_000];
    const cues = cuesOf(at.map((ms, index) => ({ at: t0 + ms, text: `caption ${index}` })));
    expect(cues.map((cue) => [cue.startMs, cue.endMs])).toEqual([
      [0, 1000],
      [1000, 2000],
      [2000, 3000],
      [3000, 5000],
      [5000, 6000],
      [6000, 7000],
      [7000, 14_000],
      [20_000, 27_000],
    ]);
    for (const cue of cues) expect(cue.endMs - cue.startMs).toBeGreaterThanOrEqual(MIN_CUE_MS);
  });

  it('gives two captions of one millisecond a readable cue each', () => {
    const cues = cuesOf([
      { at: t0, text: 'a' },
      { at: t0, text: 'b' },
    ]);
    expect(cues).toEqual([
      { startMs: 0, endMs: MIN_CUE_MS, text: 'a' },
      { startMs: MIN_CUE_MS, endMs: MIN_CUE_MS + MAX_CUE_MS, text: 'b' },
    ]);
  });

  it('gives every caption a cue of its own, whatever its text (a roll call)', () => {
    const cues = cuesOf([
      { at: t0, id: '1', text: 'Council member Hall?' },
      { at: t0 + 2000, id: '2', text: 'Aye.' },
      { at: t0 + 3000, id: '3', text: 'Aye.' },
      { at: t0 + 3100, id: '4', text: ' Aye. ' },
      { at: t0 + 9000, text: 'Thank you.' },
      { at: t0 + 9000, text: 'Thank you.' },
    ]);
    expect(cues).toEqual([
      { startMs: 0, endMs: 2000, text: 'Council member Hall?' },
      { startMs: 2000, endMs: 3000, text: 'Aye.' },
      { startMs: 3000, endMs: 4000, text: 'Aye.' },
      { startMs: 4000, endMs: 9000, text: ' Aye. ' },
      { startMs: 9000, endMs: 10_000, text: 'Thank you.' },
      { startMs: 10_000, endMs: 17_000, text: 'Thank you.' },
    ]);
  });

  it('replaces a caption by its correction or resend (same id), in place and at its own time', () => {
    const cues = cuesOf([
      { at: t0, id: 'a', text: 'Welcome, everyone.' },
      { at: t0 + 2000, id: 'b', text: 'We begin with the minuets.' },
      { at: t0 + 4000, id: 'c', text: 'Item one.' },
      // The editor's correction of b, then a resend of c after an outage.
      { at: t0 + 5000, id: 'b', text: 'We begin with the minutes.' },
      { at: t0 + 17_800, id: 'c', text: 'Item one.' },
      { at: t0 + 19_000, id: 'd', text: 'gone' },
      // Taken off the screen: its cue goes.
      { at: t0 + 19_500, id: 'd', text: '' },
    ]);
    expect(cues).toEqual([
      { startMs: 0, endMs: 2000, text: 'Welcome, everyone.' },
      { startMs: 2000, endMs: 4000, text: 'We begin with the minutes.' },
      { startMs: 4000, endMs: 11_000, text: 'Item one.' },
    ]);
  });

  it('keeps the longest cue at least as long as the shortest', () => {
    const cues = cuesOf([{ at: t0, text: 'x' }], { minMs: 3000, maxMs: 1000 });
    expect(cues).toEqual([{ startMs: 0, endMs: 3000, text: 'x' }]);
  });
});

describe('files ffmpeg reads', () => {
  it('have every cue of a burst with repeated texts read by ffprobe, none shorter than the minimum', () => {
    const at = [0, 1, 1, 2, 54, 54, 3000, 3001, 15_800, 15_801, 15_802];
    // A roll call's answers: the same text, each its own caption.
    const captions = at.map((ms, index) => ({ at: t0 + ms, text: index < 6 ? `caption ${index}` : 'Aye.' }));
    const cues = cuesOf(captions);
    expect(cues).toHaveLength(at.length);
    for (const format of ['srt', 'vtt'] as const) {
      const file = captionFile(cues, format);
      const parsed = format === 'srt' ? parseSrt(file) : parseWebVtt(file);
      expect(parsed.map((cue) => cue.text)).toEqual(captions.map((caption) => caption.text));
      for (const cue of parsed) expect(cue.endMs - cue.startMs).toBeGreaterThanOrEqual(MIN_CUE_MS);
      expect(ffprobeCueCount(file, format)).toBe(cues.length);
    }
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
