/**
 * What the links hub's sources panel writes in a source's row: the state with its reason, seconds
 * behind live and captions sent, what its captions are made with (the stop/start/remove path itself runs in chromium against the
 * real service: e2e/browser/sources-panel.test.ts).
 */
import { describe, expect, test } from '@jest/globals';
import { sourceSettingsLine, sourceStateLine, sourceSummary } from '../src/browser/lib/sources-client.js';
import { streamSource } from './helpers/stream-source.js';

const source = streamSource;

describe('a source row', () => {
  test('the state, with the reason when there is one', () => {
    expect(sourceStateLine(source({}))).toBe('Live');
    expect(sourceStateLine(source({ state: 'failed', reason: 'Connection refused' }))).toBe(
      'Failed: Connection refused',
    );
    expect(sourceStateLine(source({ state: 'stopped', running: false }))).toBe('Stopped');
  });

  test('seconds behind live and captions sent while running; the count alone when stopped', () => {
    expect(sourceSummary(source({}))).toBe('2.3 s behind live · 12 captions sent');
    expect(sourceSummary(source({ captionsSent: 1, behindSeconds: 0 }))).toBe(
      '0.0 s behind live · 1 caption sent',
    );
    expect(sourceSummary(source({ running: false, state: 'stopped' }))).toBe('12 captions sent');
  });

  test('what its captions are made with: language, mode, and whether it has a vocabulary', () => {
    const { settings } = source({});
    expect(sourceSettingsLine(settings)).toBe('en · transcript');
    expect(sourceSettingsLine({ ...settings, language: 'auto', mode: 'translate' })).toBe(
      'auto · English translation',
    );
    expect(sourceSettingsLine({ ...settings, mode: 'both', vocabulary: 'Krause' })).toBe(
      'en · transcript and English translation · vocabulary set',
    );
  });
});
