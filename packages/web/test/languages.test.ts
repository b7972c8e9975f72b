import { describe, expect, test } from '@jest/globals';
import type { Translation } from '@live-captions/protocol';
import {
  addressWithTrack,
  canonicalLanguage,
  initialTrack,
  langAttribute,
  languageChoices,
  linkTrack,
  missingLine,
  nativeName,
  parseRemembered,
  shownTrack,
  trackKeyOf,
  trackName,
} from '../src/browser/lib/languages.js';
import { archiveFile, engineSummary, translationSummary } from '../src/browser/lib/outputs-client.js';
import { readParams } from '../src/browser/lib/params.js';

describe('languages of a room', () => {
  test("a caption's track: the original whatever its ln, a translation by its canonical language", () => {
    expect(trackKeyOf({})).toBe('original');
    expect(trackKeyOf({ ln: 'de' })).toBe('original');
    expect(trackKeyOf({ label: 'transcript', ln: 'es' })).toBe('original');
    expect(trackKeyOf({ label: 'translation', ln: 'es' })).toBe('es');
    expect(trackKeyOf({ label: 'translation', ln: 'pt-br' })).toBe('pt-BR');
    expect(trackKeyOf({ label: 'translation', ln: ' CA ' })).toBe('ca');
    // Not a language tag: still a translation, never confused with the original or a language.
    expect(trackKeyOf({ label: 'translation' })).toBe('translation');
    expect(trackKeyOf({ label: 'translation', ln: 'es es' })).toBe('translation');
  });

  test('codes from links: a language tag or "original", anything else is none', () => {
    expect(linkTrack('es')).toBe('es');
    expect(linkTrack('PT-br')).toBe('pt-BR');
    expect(linkTrack('Original')).toBe('original');
    expect(linkTrack('<script>')).toBeUndefined();
    expect(linkTrack('')).toBeUndefined();
    expect(linkTrack(undefined)).toBeUndefined();
    expect(canonicalLanguage('e')).toBeUndefined();
  });

  test('names in their own language; the original by its language when known', () => {
    expect(nativeName('es')).toBe('español');
    expect(nativeName('ca')).toBe('català');
    expect(nativeName('de')).toBe('Deutsch');
    expect(trackName('original')).toBe('Original');
    expect(trackName('original', 'en')).toBe('English (original)');
    expect(trackName('translation')).toBe('Translation');
    expect(nativeName('zz')).toBe('zz');
  });

  test('a lang attribute only for two-letter languages (a three-letter one is unknown to many readers)', () => {
    expect(langAttribute('es')).toBe('es');
    expect(langAttribute('pt-br')).toBe('pt-BR');
    expect(langAttribute('hbs')).toBeUndefined();
    expect(langAttribute('hbs-HR')).toBeUndefined();
    expect(langAttribute(undefined)).toBeUndefined();
    expect(languageChoices(['original', 'hbs'])[1]).toEqual({ key: 'hbs', label: expect.any(String) });
  });

  test('the select offers the original first, the translations as they came, then all together', () => {
    expect(languageChoices(['original'])).toEqual([{ key: 'original', label: 'Original' }]);
    expect(languageChoices(['original', 'es', 'ca', 'es'], 'en')).toEqual([
      { key: 'original', label: 'English (original)', lang: 'en' },
      { key: 'es', label: 'español', lang: 'es' },
      { key: 'ca', label: 'català', lang: 'ca' },
      { key: 'all', label: 'All languages' },
    ]);
  });

  test('a chosen language not (yet) in the room shows the original and says so', () => {
    const present = new Set(['original', 'ca']);
    expect(shownTrack('ca', present)).toEqual({ show: 'ca' });
    expect(shownTrack('original', present)).toEqual({ show: 'original' });
    expect(shownTrack('all', present)).toEqual({ show: 'all' });
    expect(shownTrack('es', present)).toEqual({ show: 'original', missing: 'es' });
    expect(missingLine('es')).toBe('español is not here yet: showing the original until it comes.');
  });

  test("the link's ln comes before what the device remembered, which comes before the original", () => {
    expect(initialTrack('es', 'ca')).toBe('es');
    expect(initialTrack(undefined, 'ca')).toBe('ca');
    expect(initialTrack('nonsense!', 'ca')).toBe('ca');
    expect(initialTrack(undefined, undefined)).toBe('original');
    expect(parseRemembered('all')).toBe('all');
    expect(parseRemembered('ES')).toBe('es');
    expect(parseRemembered('{"x":1}')).toBeUndefined();
    expect(parseRemembered(null)).toBeUndefined();
  });

  test('the address carries the choice (a reload reads it) and keeps the rest of the fragment', () => {
    const page = 'https://ui.example.org/audience.html#relayUrl=wss%3A%2F%2Fr.example.org%2Fws&room=out';
    const spanish = addressWithTrack(page, 'es');
    expect(readParams(spanish).get('ln')).toBe('es');
    expect(readParams(spanish).get('room')).toBe('out');
    expect(readParams(spanish).get('relayUrl')).toBe('wss://r.example.org/ws');
    const catalan = addressWithTrack(spanish, 'ca');
    expect(readParams(catalan).get('ln')).toBe('ca');
    expect(readParams(addressWithTrack(catalan, 'original')).get('ln')).toBeUndefined();
    expect(addressWithTrack('https://ui.example.org/audience.html', 'original')).toBe(
      'https://ui.example.org/audience.html',
    );
  });
});

describe("the editor's languages and archive tracks", () => {
  const translation: Translation = {
    id: 't-1',
    target: 'es',
    source: 'en',
    engine: 'deepl',
    endpoint: 'https://api-free.deepl.com',
    key: '…f00d',
    state: 'waiting',
    behind: 3,
    sent: 12,
    lastError: { at: '2026-11-29T01:00:00.000Z', message: 'DeepL answered 429 (too many requests)' },
  };

  test("a translation's row: engine, address, source and the service's mask of the key; counts and last error", () => {
    expect(engineSummary(translation)).toBe('DeepL at https://api-free.deepl.com · from en · key …f00d');
    expect(translationSummary(translation)).toBe(
      '12 sent · 3 behind · last error: DeepL answered 429 (too many requests)',
    );
    expect(
      engineSummary({ ...translation, engine: 'apertium', endpoint: 'http://apy:2737', key: null }),
    ).toBe('Apertium at http://apy:2737 · from en');
    expect(translationSummary({ ...translation, behind: 0, lastError: null })).toBe('12 sent');
  });

  test("an archived session's file per track: the original's name unchanged, a language's before the format", () => {
    const session = '0b9a4a39-7c55-4c1e-9d7a-2f1f7f0f5a11';
    expect(archiveFile(session, 'srt')).toBe(`${session}.srt`);
    expect(archiveFile(session, 'vtt', 'original')).toBe(`${session}.vtt`);
    expect(archiveFile(session, 'txt', 'pt-BR')).toBe(`${session}.pt-BR.txt`);
  });
});
