import { describe, expect, test } from '@jest/globals';
import { parseSrt, parseWebVtt } from '@live-captions/caption-files';
import { exportFile, exportStem, SentLog } from '../src/browser/lib/caption-export.js';

describe('exports of the reviewed captions', () => {
  test('the log keeps the time each went out; a correction replaces its text; a withdrawn one goes', () => {
    const log = new SentLog();
    log.record('ed-1', 'Hello', 10_000);
    log.record('ed-2', 'Wrold', 12_000);
    log.record('ed-2', 'World', 13_500);
    log.record('ed-3', 'Oops', 14_000);
    log.record('ed-3', '', 14_500);
    log.record('ed-4', 'Two\nlines', 16_000);
    expect(log.captions).toEqual([
      { id: 'ed-1', at: 10_000, text: 'Hello' },
      { id: 'ed-2', at: 12_000, text: 'World' },
      { id: 'ed-4', at: 16_000, text: 'Two\nlines' },
    ]);
    const srt = exportFile(log.captions, 'srt', 'editor');
    expect(srt.name).toBe('editor.srt');
    expect(parseSrt(srt.text)).toEqual([
      { startMs: 0, endMs: 2_000, text: 'Hello' },
      { startMs: 2_000, endMs: 6_000, text: 'World' },
      { startMs: 6_000, endMs: 13_000, text: 'Two\nlines' },
    ]);
    expect(parseWebVtt(exportFile(log.captions, 'vtt', 'editor').text)).toEqual(parseSrt(srt.text));
    expect(exportFile(log.captions, 'txt', 'editor').text).toContain('World');
    expect(exportFile(log.captions, 'vtt', 'x').type).toMatch(/^text\/vtt/);
  });

  test('every caption sent is a cue, whatever its text (a roll call)', () => {
    const log = new SentLog();
    log.record('ed-1', 'Thank you.', 10_000);
    log.record('ed-2', 'Thank you.', 11_500);
    log.record('ed-3', 'Aye.', 14_000);
    log.record('ed-4', 'Aye.', 14_200);
    log.record('ed-4', 'Aye.', 14_900);
    log.record('ed-5', 'Aye.', 20_000);
    for (const format of ['srt', 'vtt'] as const) {
      const file = exportFile(log.captions, format, 'editor').text;
      const cues = format === 'srt' ? parseSrt(file) : parseWebVtt(file);
      expect(cues.map((cue) => [cue.startMs, cue.text])).toEqual([
        [0, 'Thank you.'],
        [1_500, 'Thank you.'],
        [4_000, 'Aye.'],
        [5_000, 'Aye.'],
        [10_000, 'Aye.'],
      ]);
    }
  });

  test('file names carry the date and time', () => {
    expect(exportStem('captions', new Date(2026, 10, 26, 9, 5))).toBe('captions-2026-11-26-0905');
  });
});

describe('the capture page’s transcript', () => {
  test('its lines export with their times; a translation is the second line', async () => {
    const { transcriptCaptions } = await import('../src/browser/lib/caption-export.js');
    const lines = [
      { at: new Date(1_000), text: 'Hallo', translation: 'Hello' },
      { at: new Date(4_000), text: 'Welt' },
      { at: new Date(6_000), text: 'Welt' },
    ];
    const cues = parseWebVtt(exportFile(transcriptCaptions(lines), 'vtt', 't').text);
    expect(cues).toEqual([
      { startMs: 0, endMs: 3_000, text: 'Hallo\nHello' },
      { startMs: 3_000, endMs: 5_000, text: 'Welt' },
      { startMs: 5_000, endMs: 12_000, text: 'Welt' },
    ]);
  });
});
