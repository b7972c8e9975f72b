import { audioContextForClip, TEMPERATURE_INCREMENT, WhisperError, WhisperModel } from '../src/index.js';
import { resolveDecodeOptions } from '../src/options.js';
import { readClip, syntheticModel } from './fixtures.js';

describe('audioContextForClip', () => {
  it('sizes the encoder to the clip with a margin, in steps of 32', () => {
    expect(audioContextForClip(16_000, 1500)).toBe(96); // 1 s = 50 frames + 16 -> 96
    expect(audioContextForClip(3 * 16_000, 1500)).toBe(192); // 150 + 16 -> 192
    expect(audioContextForClip(100, 1500)).toBe(64);
  });

  it('never exceeds the model context', () => {
    expect(audioContextForClip(40 * 16_000, 1500)).toBe(1500);
  });
});

describe('temperature', () => {
  const context = {
    samples: 16_000,
    modelAudioContext: 1500,
    languages: new Set(['en']),
    multilingual: true,
  };

  it('is 0 without fallback unless asked; the fallback is whisper.cpp’s 0.2 step', () => {
    expect(resolveDecodeOptions({}, context)).toMatchObject({ temperature: 0, temperatureIncrement: 0 });
    expect(resolveDecodeOptions({ temperature: 0.4, temperatureFallback: true }, context)).toMatchObject({
      temperature: 0.4,
      temperatureIncrement: TEMPERATURE_INCREMENT,
    });
    expect(TEMPERATURE_INCREMENT).toBe(0.2);
    for (const temperature of [-0.1, 1.2, Number.NaN]) {
      expect(() => resolveDecodeOptions({ temperature }, context)).toThrow(WhisperError);
    }
  });

  it('decodes at a temperature with fallback, and every token carries its log probability', async () => {
    const model = await WhisperModel.load(syntheticModel('tiny'));
    const state = model.createState();
    const clip = readClip('en-pocketsphinx-goforward.wav');
    for (const options of [{}, { temperature: 0.8, temperatureFallback: true, singleSegment: false }]) {
      const result = await state.decode(clip, options);
      expect(result.text.trim()).toBe('test');
      const tokens = result.segments.flatMap((segment) => segment.tokens);
      expect(tokens.length).toBeGreaterThan(0);
      for (const token of tokens) {
        expect(token.logprob).toBeLessThanOrEqual(0);
        expect(token.logprob).toBeCloseTo(Math.log(token.probability), 3);
      }
    }
    state.free();
    model.free();
  });
});
