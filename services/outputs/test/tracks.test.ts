/**
 * Tracks and the translation frames, as pure rules: which track a caption is on, how a client's
 * track code is read, and what text a translation frame may carry.
 */
import { describe, expect, test } from '@jest/globals';
import { RELAY_TEXT_MAX } from '@live-captions/protocol';
import { newDestinationSchema, zoomLang } from '../src/domain/api.js';
import { compareTracks, parseTrack, trackOf } from '../src/domain/tracks.js';
import {
  carriableText,
  clearFrame,
  TEXT_JSON_BYTES_MAX,
  translationFrame,
} from '../src/domain/translation-frames.js';

describe('tracks', () => {
  test("a caption's track: original unless labelled translation, else its ln (canonical)", () => {
    expect(trackOf({})).toBe('original');
    expect(trackOf({ ln: 'fr' })).toBe('original');
    expect(trackOf({ label: 'speaker 2', ln: 'fr' })).toBe('original');
    expect(trackOf({ label: 'translation', ln: 'en' })).toBe('en');
    expect(trackOf({ label: 'translation', ln: 'pt-br' })).toBe('pt-BR');
    expect(trackOf({ label: 'translation', ln: 'ZH-hant' })).toBe('zh-Hant');
    // A translation nobody can name is no track: it goes nowhere.
    expect(trackOf({ label: 'translation' })).toBeUndefined();
    expect(trackOf({ label: 'translation', ln: 'not a tag' })).toBeUndefined();
  });

  test('a client names a track as original or a language tag', () => {
    expect(parseTrack('original')).toBe('original');
    expect(parseTrack('es')).toBe('es');
    expect(parseTrack('es-mx')).toBe('es-MX');
    // A macrolanguage the engines name by its own code stays that code (CLDR would make `hbs`
    // `sr-Latn`, which no engine lists: the API refused Apertium's own `hbs`).
    expect(parseTrack('hbs')).toBe('hbs');
    expect(parseTrack('HBS')).toBe('hbs');
    expect(parseTrack('iw')).toBe('he');
    for (const bad of ['', 'Original', 'español', 'e', 'es_ES', 'es--x', '../es'])
      expect(parseTrack(bad)).toBeUndefined();
  });

  test('tracks are listed original first, then by code', () => {
    expect(['es', 'original', 'ca', 'en'].sort(compareTracks)).toEqual(['original', 'ca', 'en', 'es']);
  });

  test('a platform destination takes a track; Zoom speaks its language unless told', () => {
    const parsed = newDestinationSchema.parse({ kind: 'zoom', url: 'x', track: 'pt-br' });
    expect(parsed).toEqual({ kind: 'zoom', url: 'x', track: 'pt-BR' });
    expect(newDestinationSchema.parse({ kind: 'youtube', url: 'x' })).toEqual({
      kind: 'youtube',
      url: 'x',
      track: 'original',
    });
    expect(zoomLang(undefined, 'original')).toBe('en-US');
    expect(zoomLang(undefined, 'es')).toBe('es-ES');
    expect(zoomLang(undefined, 'ca')).toBe('ca-ES');
    expect(zoomLang(undefined, 'pt-BR')).toBe('pt-BR');
    expect(zoomLang(undefined, 'sr-Latn')).toBe('sr-RS');
    expect(zoomLang('es-MX', 'es')).toBe('es-MX');
    const bad = newDestinationSchema.safeParse({ kind: 'youtube', url: 'x', track: 'Spanish' });
    expect(bad.success ? '' : bad.error.issues[0]?.message).toMatch(/^track: /);
    expect(newDestinationSchema.safeParse({ kind: 'archive', track: 'es' }).success).toBe(false);
  });
});

describe('translation frames', () => {
  test('a translation is a final of the target track with the original id; a clear is an empty final', () => {
    expect(translationFrame(7, 'Hola.', 'es')).toEqual({
      final: 'Hola.',
      id: 7,
      label: 'translation',
      ln: 'es',
    });
    expect(clearFrame('c9', 'ca')).toEqual({ final: '', id: 'c9', label: 'translation', ln: 'ca', c: true });
  });

  test('controls and lone surrogates are removed or replaced; line breaks and tabs stay', () => {
    expect(carriableText('a\u0000b\u0007c\u001bd\u007fe')).toBe('abcde');
    expect(carriableText('one\r\ntwo\rthree\n\tfour')).toBe('one\ntwo\nthree\n\tfour');
    expect(carriableText('x\ud800y\udc00z 😀')).toBe('x\ufffdy\ufffdz 😀');
  });

  test('a text too long for a frame is cut at a word with an ellipsis, within both limits', () => {
    const words = Array.from({ length: 1200 }, (_, i) => `palabra${i}`).join(' ');
    const cut = carriableText(words);
    expect(cut.length).toBeLessThanOrEqual(RELAY_TEXT_MAX);
    expect(cut.endsWith('…')).toBe(true);
    expect(words.startsWith(cut.slice(0, -1))).toBe(true);
    expect(cut.at(-2)).toMatch(/\d/);
    // Three bytes a character: the byte limit binds before the character limit.
    const wide = carriableText('漢'.repeat(4000));
    expect(new TextEncoder().encode(JSON.stringify(wide)).length).toBeLessThanOrEqual(TEXT_JSON_BYTES_MAX);
    expect(wide.length).toBeGreaterThan(2000);
    expect(carriableText('short')).toBe('short');
  });
});
