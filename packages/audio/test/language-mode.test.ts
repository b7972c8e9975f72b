import { describe, expect, it } from '@jest/globals';
import { WHISPER_LANGUAGES } from '@live-captions/protocol';
import { checkLanguageAndMode, LanguageModeMessages, modelAbilities, TASK_MODES } from '../src/index.js';

const multilingual = modelAbilities(true);
const englishOnly = modelAbilities(false);
const reasonOf = (check: ReturnType<typeof checkLanguageAndMode>) => (check.ok ? 'ok' : check.reason);

describe('checkLanguageAndMode', () => {
  it('lets an English-only model transcribe English and auto-detect, nothing else', () => {
    expect(checkLanguageAndMode('en', 'transcribe', englishOnly)).toEqual({
      ok: true,
      language: 'en',
      mode: 'transcribe',
    });
    expect(checkLanguageAndMode('auto', 'transcribe', englishOnly)).toEqual({
      ok: true,
      language: 'auto',
      mode: 'transcribe',
    });
    for (const mode of ['translate', 'both']) {
      expect(checkLanguageAndMode('en', mode, englishOnly)).toMatchObject({
        ok: false,
        reason: 'englishOnly',
        param: 'language',
        message: LanguageModeMessages.englishOnly,
      });
    }
    expect(reasonOf(checkLanguageAndMode('fr', 'transcribe', englishOnly))).toBe('englishOnly');
  });

  it('lets a multilingual model serve every whisper language in every mode', () => {
    for (const language of ['auto', ...WHISPER_LANGUAGES]) {
      for (const mode of TASK_MODES)
        expect(reasonOf(checkLanguageAndMode(language, mode, multilingual))).toBe('ok');
    }
  });

  it('refuses unknown codes and modes first, in the contract order', () => {
    expect(checkLanguageAndMode('xx', 'transcribe', multilingual)).toMatchObject({
      reason: 'language',
      param: 'language',
      message: LanguageModeMessages.language,
    });
    expect(reasonOf(checkLanguageAndMode('xx', 'translate', englishOnly))).toBe('language');
    expect(reasonOf(checkLanguageAndMode(undefined, 'transcribe', multilingual))).toBe('language');
    expect(checkLanguageAndMode('en', 'summarize', multilingual)).toMatchObject({
      reason: 'mode',
      param: 'mode',
      message: LanguageModeMessages.mode,
    });
    expect(reasonOf(checkLanguageAndMode('fr', 'summarize', englishOnly))).toBe('mode');
  });

  it('follows what the engine reports when it differs from the defaults', () => {
    const someLanguages = { multilingual: true, languages: ['en', 'de'], modes: ['transcribe' as const] };
    expect(reasonOf(checkLanguageAndMode('fr', 'transcribe', someLanguages))).toBe('language');
    expect(checkLanguageAndMode('de', 'translate', someLanguages)).toMatchObject({
      reason: 'englishOnly',
      param: 'mode',
    });
  });
});
