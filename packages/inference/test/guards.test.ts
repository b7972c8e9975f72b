// The guards' rules on their own (pure); end to end through the engine: services/speech/test/guards.test.ts.
import { describe, expect, it } from '@jest/globals';
import { loadEngineConfig } from '../src/config.js';
import {
  compressionRatio,
  cutLoops,
  DEFAULT_GUARDS,
  guardSegments,
  isKnownPhrase,
} from '../src/domain/guards/index.js';

const tokens = (text: string, logprob = 0) => text.split(/(?=\s)/).map((t) => ({ text: t, logprob }));
const segment = (text: string, noSpeechProbability = 0, logprob = 0) => ({
  text,
  noSpeechProbability,
  tokens: tokens(text, logprob),
});
const run = (segments: ReturnType<typeof segment>[], speechRatio: number | undefined, previous?: string) =>
  guardSegments(segments, {
    settings: DEFAULT_GUARDS,
    language: 'en',
    speechRatio,
    ...(previous === undefined ? {} : { previous }),
  });
const texts = (out: { segments: { text: string }[] }) => out.segments.map((s) => s.text);

describe('loop guard', () => {
  it('cuts a phrase repeated 3 times or more back to its first occurrence, keeps what follows', () => {
    const cut = cutLoops(tokens(' Thank you. Thank you. thank you, and then we left'), 3);
    expect(cut.tokens.map((t) => t.text).join('')).toBe(' Thank you. and then we left');
    expect(cut.cuts).toBe(1);
    // twice is speech, not a loop
    expect(cutLoops(tokens(' no no, thank you thank you'), 3).cuts).toBe(0);
    // one word needs twice as many repeats
    expect(cutLoops(tokens(' you you you you you'), 3).cuts).toBe(0);
    expect(cutLoops(tokens(' you you you you you you'), 3).tokens.map((t) => t.text)).toEqual([' you']);
    // a loop stopped by the token limit ends in part of the phrase: that goes too
    expect(
      cutLoops(tokens(' Thank you Thank you Thank you Thank'), 3)
        .tokens.map((t) => t.text)
        .join(''),
    ).toBe(' Thank you');
  });

  it('measures repetitiveness as OpenAI does (gzip ratio)', () => {
    expect(compressionRatio(' Thank you'.repeat(100))).toBeGreaterThan(10);
    expect(
      compressionRatio(' And so my fellow Americans, ask not what your country can do for you.'),
    ).toBeLessThan(2.4);
  });

  it('drops a segment that repeats the text just committed (4 words or more)', () => {
    expect(texts(run([segment(' We will look at it.')], 1, 'we will look at it'))).toEqual([]);
    expect(texts(run([segment(' Yes.')], 1, 'Yes.'))).toEqual([' Yes.']);
    expect(texts(run([segment(' We will look at it.'), segment(' We will look at it.')], 1))).toEqual([
      ' We will look at it.',
    ]);
  });

  it('drops a decode that repeats the text just committed over several segments, as a whole', () => {
    const said = [segment(' Good morning everyone and welcome'), segment(' to our weekly meeting about')];
    const again = run(said, 1, 'Good morning everyone and welcome to our weekly meeting about');
    expect(texts(again)).toEqual([]);
    expect(again.report.loopsCut).toBe(1);
    // more than that, or part of it, is not a repeat of it
    expect(texts(run(said, 1, 'Good morning everyone and welcome to our weekly'))).toHaveLength(2);
    expect(
      texts(
        run(
          [...said, segment(' the new budget')],
          1,
          'Good morning everyone and welcome to our weekly meeting about',
        ),
      ),
    ).toHaveLength(3);
  });

  it('is off with loops: false', () => {
    const loop = segment(' Thank you'.repeat(50));
    expect(
      guardSegments([loop], { settings: { ...DEFAULT_GUARDS, loops: false }, language: 'en', speechRatio: 1 })
        .segments,
    ).toEqual([loop]);
  });
});

describe('hallucination guard', () => {
  it('drops what whisper.cpp itself finds unsure (no-speech > 0.6 and log-probability < -1)', () => {
    const out = run(
      [segment(' maybe words', 0.7, -1.2), segment(' sure words', 0.7, -0.5), segment(' more', 0.5, -2)],
      1,
    );
    expect(texts(out)).toEqual([' sure words', ' more']);
    expect(out.report.unsureDropped).toBe(1);
  });

  it('knows the phrases per language, whatever the case and punctuation', () => {
    expect(isKnownPhrase(' Thank you for watching!', 'en')).toBe(true);
    expect(isKnownPhrase('ご視聴ありがとうございました', 'ja')).toBe(true);
    expect(isKnownPhrase('Untertitel im Auftrag des ZDF, 2017', 'de')).toBe(true);
    // Whisper falls back to English phrases in any language
    expect(isKnownPhrase('Thanks for watching.', 'fr')).toBe(true);
    expect(isKnownPhrase('Thank you for coming tonight.', 'en')).toBe(false);
  });

  it('drops a known phrase from audio with little speech only', () => {
    const phrase = segment(' Thank you for watching.');
    expect(run([phrase], 0.2).report.phrasesDropped).toBe(1);
    expect(texts(run([phrase], 0.2))).toEqual([]);
    expect(texts(run([phrase], 0.8))).toEqual([' Thank you for watching.']);
    // without a VAD the speech share is unknown: the phrase goes
    expect(texts(run([phrase], undefined))).toEqual([]);
  });
});

describe('engine settings', () => {
  it('have VAD (Silero) and every guard on by default, one setting each to tune or turn off', () => {
    const defaults = loadEngineConfig({});
    expect(defaults.vadModel).toBe('silero');
    expect(defaults.guards).toEqual(DEFAULT_GUARDS);
    expect(DEFAULT_GUARDS).toMatchObject({
      noSpeechThreshold: 0.6,
      logprobThreshold: -1,
      compressionRatioThreshold: 2.4,
    });
    const tuned = loadEngineConfig({
      CAPTION_VAD_MODEL: 'off',
      CAPTION_GUARD_NO_SPEECH: '0.8',
      CAPTION_GUARD_PHRASES: 'off',
      CAPTION_GUARD_LOOPS: '0',
    });
    expect(tuned.vadModel).toBeUndefined();
    expect(tuned.guards).toMatchObject({ noSpeechThreshold: 0.8, phrases: false, loops: false });
  });

  it('name each wrong value', () => {
    expect(() => loadEngineConfig({ CAPTION_GUARD_NO_SPEECH: '2', CAPTION_GUARD_LOOPS: 'maybe' })).toThrow(
      /CAPTION_GUARD_NO_SPEECH.*at most 1[\s\S]*CAPTION_GUARD_LOOPS.*1\/0/,
    );
  });
});
