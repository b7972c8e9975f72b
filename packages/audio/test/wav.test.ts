import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { decodeWav, encodeWav, SAMPLE_RATE, WavError, type WavProblem } from '../src/index.js';

/** The refusal's problem; anything but a WavError is a failure of the test. */
function problemOf(run: () => unknown): WavProblem {
  const error = (() => {
    try {
      run();
    } catch (caught) {
      return caught;
    }
    throw new Error('decoded without a refusal');
  })();
  if (!(error instanceof WavError)) throw error;
  return error.problem;
}

describe('encodeWav and decodeWav', () => {
  it('round-trip every layout within half a quantization step', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          { bits: 16 as const, float: false, step: 1 / 32768 },
          { bits: 24 as const, float: false, step: 1 / 8388608 },
          { bits: 32 as const, float: false, step: 1 / 2147483648 },
          { bits: 32 as const, float: true, step: 1e-7 },
        ),
        fc.boolean(),
        fc.array(fc.double({ min: -1, max: 0.999, noNaN: true }), { minLength: 160, maxLength: 600 }),
        (format, extensible, values) => {
          const wav = decodeWav(encodeWav(values, { sampleRate: SAMPLE_RATE, ...format, extensible }));
          expect(wav.frames).toBe(values.length);
          for (const [i, value] of values.entries()) {
            expect(Math.abs(wav.samples[i]! - value)).toBeLessThanOrEqual(format.step / 2 + 1e-7);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('clips beyond full scale on the way in', () => {
    const wav = decodeWav(encodeWav([2, -2, ...new Array(200).fill(0)], { sampleRate: SAMPLE_RATE }));
    expect(wav.samples[0]).toBe(32767 / 32768);
    expect(wav.samples[1]).toBe(-1);
  });

  it('names each refusal', () => {
    const frames = new Array(1600).fill(0);
    expect(problemOf(() => decodeWav(encodeWav(frames, { sampleRate: 7999 })))).toBe('rate');
    expect(
      problemOf(() => decodeWav(encodeWav(new Array(4800).fill(0), { sampleRate: 16000, channels: 3 }))),
    ).toBe('channels');
    expect(problemOf(() => decodeWav(encodeWav(new Array(159).fill(0), { sampleRate: 16000 })))).toBe(
      'tooShort',
    );
    expect(
      problemOf(() => decodeWav(encodeWav(new Array(8000 * 12 + 1).fill(0), { sampleRate: 8000 }))),
    ).toBe('tooLong');
    const file = encodeWav(frames, { sampleRate: 16000 });
    expect(problemOf(() => decodeWav(file.subarray(0, file.length - 1)))).toBe('truncated');
    expect(problemOf(() => decodeWav(new TextEncoder().encode('ID3 not a wav')))).toBe('unsupported');
    expect(
      problemOf(() =>
        decodeWav(
          encodeWav([...new Array(200).fill(0), Number.NaN], { sampleRate: 16000, bits: 32, float: true }),
        ),
      ),
    ).toBe('samples');
  });

  it('takes other clip bounds when asked (benchmarks read long fixtures)', () => {
    const long = encodeWav(new Array(16000 * 13).fill(0), { sampleRate: 16000 });
    expect(problemOf(() => decodeWav(long))).toBe('tooLong');
    expect(decodeWav(long, { minSeconds: 0, maxSeconds: Number.POSITIVE_INFINITY }).samples.length).toBe(
      16000 * 13,
    );
  });
});
