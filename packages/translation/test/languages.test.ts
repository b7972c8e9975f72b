import { describe, expect, test } from '@jest/globals';
import {
  canonicalLanguage,
  englishName,
  fromApertium,
  fromDeepL,
  fromLibreTranslate,
  splitSentences,
  toApertium,
  toDeepLSource,
  toDeepLTarget,
  toLibreTranslate,
} from '../src/index.js';

describe('language codes', () => {
  test.each([
    ['eng', 'en'],
    ['spa', 'es'],
    ['cat', 'ca'],
    ['cat_valencia', 'ca-valencia'],
    ['cat_iec2017', 'ca-iec2017'],
    ['cat_valencia_uni', 'ca-valencia-x-uni'],
    ['eng_US', 'en-US'],
    ['por_BR', 'pt-BR'],
    ['ast', 'ast'],
    ['hbs', 'hbs'],
    ['srp_Latn', 'sr-Latn'],
  ])('Apertium %s is %s, and back the way APy reads it', (apertium, tag) => {
    expect(fromApertium(apertium)).toBe(tag);
    // APy turns the two-letter language into its own code itself (`to_alpha3_code`).
    expect(toApertium(tag)).toBe(apertium.replace(/^[a-z]{3}/, tag.split('-')[0]!));
  });

  test('LibreTranslate: model codes out, BCP-47 in', () => {
    expect(['en', 'pb', 'zt', 'zh', 'pt-BR', 'zh-Hans', 'ZH-hant'].map(fromLibreTranslate)).toEqual([
      'en',
      'pt-BR',
      'zh-Hant',
      'zh',
      'pt-BR',
      'zh-Hans',
      'zh-Hant',
    ]);
    expect(['en', 'pt-BR', 'zh-Hans', 'zh-Hant', 'es'].map(toLibreTranslate)).toEqual([
      'en',
      'pb',
      'zh',
      'zt',
      'es',
    ]);
  });

  test('DeepL: upper case with regions', () => {
    expect(['EN-GB', 'PT-BR', 'ZH-HANS', 'ES', 'ES-419'].map(fromDeepL)).toEqual([
      'en-GB',
      'pt-BR',
      'zh-Hans',
      'es',
      'es-419',
    ]);
    expect(toDeepLTarget('pt-BR')).toBe('PT-BR');
    expect(toDeepLTarget('zh-Hans')).toBe('ZH-HANS');
    expect(toDeepLSource('en-US')).toBe('EN');
  });

  test('canonical tags and English names', () => {
    expect(canonicalLanguage('EN-gb')).toBe('en-GB');
    expect(canonicalLanguage('not a tag')).toBeUndefined();
    expect(englishName('ca-valencia')).toBe('Catalan (Valencian)');
    expect(englishName('es')).toBe('Spanish');
  });
});

describe('sentence ends inside a caption', () => {
  const ends = (text: string) => splitSentences(text).map((piece) => `${piece.text}${piece.end ? ' |' : ''}`);

  test('a caption may end one sentence and begin the next', () => {
    expect(ends('the budget. Next item')).toEqual(['the budget. |', 'Next item']);
    expect(ends('Could it wait? Yes! It can…')).toEqual(['Could it wait? |', 'Yes! |', 'It can… |']);
    expect(ends('he said "no." Then')).toEqual(['he said "no." |', 'Then']);
    expect(ends('  spaced \n out.  ')).toEqual(['spaced out. |']);
    expect(ends('')).toEqual([]);
  });

  test('titles, initials, short forms and lower-case continuations end nothing', () => {
    expect(ends('Mr. Okonkwo and Dr. Hall met J. Smith.')).toEqual([
      'Mr. Okonkwo and Dr. Hall met J. Smith. |',
    ]);
    expect(ends('at 5 p.m. today in the U.S. The end')).toEqual(['at 5 p.m. today in the U.S. |', 'The end']);
    expect(ends('the parks budget... or so')).toEqual(['the parks budget... or so']);
    expect(ends('It costs 4.2 million.')).toEqual(['It costs 4.2 million. |']);
  });
});
