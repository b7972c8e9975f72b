import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { resample } from '../src/domain/resample.js';
import { sine } from './helpers/wav.js';

/** RMS over the middle of a signal (away from the zero-padded edges). */
function rms(signal: Float32Array): number {
  const from = Math.floor(signal.length / 4);
  const to = Math.floor((signal.length * 3) / 4);
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += signal[i]! ** 2;
  return Math.sqrt(sum / (to - from));
}

describe('resample', () => {
  it('passes in-band tones (up to 80 % of the lower Nyquist) at unit gain from any rate', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8000, max: 48000 }),
        fc.double({ min: 0.02, max: 0.8, noNaN: true }),
        (rate, position) => {
          const frequency = (position * Math.min(rate, 16000)) / 2;
          const input = sine(rate, 0.25, frequency, 0.5);
          const out = resample(input, rate, 16000);
          expect(out.length).toBe(Math.round((input.length * 16000) / rate));
          const expected = 0.5 / Math.SQRT2;
          expect(Math.abs(rms(out) - expected) / expected).toBeLessThan(0.01);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('suppresses tones above the 8 kHz Nyquist instead of aliasing them (band-limited)', () => {
    for (const [rate, frequency] of [
      [48000, 12000],
      [44100, 9000],
      [32000, 15000],
      [22050, 10000],
    ] as const) {
      const out = resample(sine(rate, 0.25, frequency, 0.5), rate, 16000);
      // A naive (linear / decimating) resampler leaves these at roughly -3 to -10 dB.
      expect(20 * Math.log10(rms(out) / (0.5 / Math.SQRT2))).toBeLessThan(-60);
    }
  });

  it('is identity at 16 kHz and linear', () => {
    fc.assert(
      fc.property(
        fc.float32Array({
          minLength: 1,
          maxLength: 200,
          noNaN: true,
          noDefaultInfinity: true,
          min: -1,
          max: 1,
        }),
        fc.integer({ min: 8000, max: 48000 }),
        (signal, rate) => {
          expect(resample(signal, 16000, 16000)).toEqual(signal);
          const doubled = resample(
            signal.map((x) => 2 * x),
            rate,
            16000,
          );
          const single = resample(signal, rate, 16000);
          for (const [i, value] of doubled.entries()) expect(value).toBeCloseTo(2 * single[i]!, 4);
        },
      ),
      { numRuns: 30 },
    );
  });
});
