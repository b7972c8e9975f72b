import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { concatSamples, resample, StreamResampler } from '../src/index.js';

/** A sine of `seconds` at `rate`, amplitude `amp`. */
function sine(rate: number, seconds: number, frequency: number, amp = 0.5): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i += 1) out[i] = amp * Math.sin((2 * Math.PI * frequency * i) / rate);
  return out;
}

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

const tone = (rate: number, hz: number, seconds: number, amplitude = 0.5) =>
  Float32Array.from(
    { length: Math.round(rate * seconds) },
    (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate),
  );

/** Resamples `input` in frames of the given sizes (cycled), then flushes. */
function resampleInFrames(resampler: StreamResampler, input: Float32Array, sizes: number[]): Float32Array {
  const parts: Float32Array[] = [];
  for (let at = 0, n = 0; at < input.length; n++) {
    const size = sizes[n % sizes.length]!;
    parts.push(resampler.process(input.subarray(at, at + size)));
    at += size;
  }
  parts.push(resampler.flush());
  return concatSamples(parts);
}

const rmsOf = (samples: Float32Array) =>
  Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);

describe('StreamResampler (the capture page: any rate to 24 kHz)', () => {
  it('16 kHz to 24 kHz: a 440 Hz tone stays the same tone, one output per 2/3 input', () => {
    const out = resampleInFrames(new StreamResampler(16_000, 24_000), tone(16_000, 440, 1), [800]);
    expect(out.length).toBe(24_000);
    const expected = tone(24_000, 440, 1);
    // Away from the edges (the filter's half width), the error is tiny.
    let worst = 0;
    for (let i = 100; i < out.length - 100; i++) worst = Math.max(worst, Math.abs(out[i]! - expected[i]!));
    expect(worst).toBeLessThan(0.005);
  });

  it('the output does not depend on how the input is cut into frames', () => {
    const input = tone(48_000, 1000, 0.5);
    const whole = resampleInFrames(new StreamResampler(48_000, 24_000), input, [input.length]);
    const framed = resampleInFrames(new StreamResampler(48_000, 24_000), input, [128, 7, 2400, 1, 333]);
    expect(framed.length).toBe(whole.length);
    expect(framed.length).toBe(12_000);
    let worst = 0;
    for (let i = 0; i < whole.length; i++) worst = Math.max(worst, Math.abs(framed[i]! - whole[i]!));
    expect(worst).toBeLessThan(1e-6);
  });

  it('48 kHz to 24 kHz keeps speech frequencies and removes what would alias', () => {
    const speech = resampleInFrames(new StreamResampler(48_000, 24_000), tone(48_000, 3000, 0.5), [2400]);
    expect(rmsOf(speech.subarray(200, -200))).toBeCloseTo(0.5 / Math.SQRT2, 2);
    // 15 kHz is above the 12 kHz Nyquist of 24 kHz: it would fold to 9 kHz without the filter.
    const high = resampleInFrames(new StreamResampler(48_000, 24_000), tone(48_000, 15_000, 0.5), [2400]);
    expect(rmsOf(high.subarray(200, -200))).toBeLessThan(0.01);
  });

  it('44.1 kHz to 24 kHz: lengths add up and a constant stays constant', () => {
    const out = resampleInFrames(
      new StreamResampler(44_100, 24_000),
      new Float32Array(44_100).fill(0.25),
      [441],
    );
    expect(out.length).toBe(24_000);
    for (const x of out.subarray(100, -100)) expect(x).toBeCloseTo(0.25, 5);
  });

  it('equal rates pass frames through as copies', () => {
    const resampler = new StreamResampler(24_000, 24_000);
    const frame = tone(24_000, 300, 0.01);
    const out = resampler.process(frame);
    expect(out).toEqual(frame);
    expect(out).not.toBe(frame);
    expect(resampler.flush()).toHaveLength(0);
  });

  it('rejects a rate that is not positive', () => {
    expect(() => new StreamResampler(0, 24_000)).toThrow(RangeError);
  });
});

describe('StreamResampler (realtime appends to 16 kHz)', () => {
  /** One second of a 440 Hz tone at 24 kHz, converted at once, and a fresh stream for it. */
  const realtimeCase = () => {
    const input = tone(24_000, 440, 1);
    return { input, whole: resample(input, 24_000, 16_000), stream: new StreamResampler(24_000, 16_000) };
  };

  it('converts 20 ms chunks of 24 kHz as the whole clip at once', () => {
    const { input, whole, stream } = realtimeCase();
    const parts: number[] = [];
    for (let at = 0; at < input.length; at += 480)
      parts.push(...stream.process(input.subarray(at, at + 480)));
    // The stream holds back its filter's half width; everything it gave matches the whole conversion.
    expect(parts.length).toBeGreaterThan(whole.length - 100);
    for (let i = 100; i < parts.length; i += 1) expect(Math.abs(parts[i]! - whole[i]!)).toBeLessThan(1e-5);
  });

  it('flushes what it holds back at a cut, and goes on in step with the whole conversion', () => {
    const { input, whole, stream } = realtimeCase();
    const before = [...stream.process(input.subarray(0, 12_000))];
    expect(before.length).toBeLessThan(8000);
    before.push(...stream.flush());
    // All of the input so far has come out, and nothing more is held back.
    expect(before).toHaveLength(8000);
    expect(stream.flush()).toHaveLength(0);
    const after = [...stream.process(input.subarray(12_000)), ...stream.flush()];
    expect(before.length + after.length).toBe(16_000);
    // Only the 4 ms before the cut lacked the input after them.
    for (let i = 100; i < 8000 - 64; i += 1) expect(Math.abs(before[i]! - whole[i]!)).toBeLessThan(1e-5);
    for (let i = 0; i < after.length - 100; i += 1) {
      expect(Math.abs(after[i]! - whole[8000 + i]!)).toBeLessThan(1e-5);
    }
  });

  it('doubles 8 kHz G.711 rates to 16 kHz', () => {
    const stream = new StreamResampler(8_000, 16_000);
    let total = 0;
    for (let i = 0; i < 50; i += 1) total += stream.process(new Float32Array(160)).length;
    expect(total).toBeGreaterThan(50 * 320 - 200);
    expect(total % 2).toBe(0);
  });
});
