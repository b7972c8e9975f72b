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
      { at: 10_000, text: 'Hello' },
      { at: 12_000, text: 'World' },
      { at: 16_000, text: 'Two\nlines' },
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
    ];
    const cues = parseWebVtt(exportFile(transcriptCaptions(lines), 'vtt', 't').text);
    expect(cues).toEqual([
      { startMs: 0, endMs: 3_000, text: 'Hallo\nHello' },
      { startMs: 3_000, endMs: 10_000, text: 'Welt' },
    ]);
  });
});
