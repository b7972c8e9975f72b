import { describe, expect, test } from '@jest/globals';
import { base64, pcm16 } from '../src/browser/lib/pcm16.js';
import { StreamResampler } from '../src/browser/lib/resample.js';

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
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const rmsOf = (samples: Float32Array) =>
  Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);

describe('StreamResampler', () => {
  test('16 kHz to 24 kHz: a 440 Hz tone stays the same tone, one output per 2/3 input', () => {
    const out = resampleInFrames(new StreamResampler(16_000, 24_000), tone(16_000, 440, 1), [800]);
    expect(out.length).toBe(24_000);
    const expected = tone(24_000, 440, 1);
    // Away from the edges (the filter's half width), the error is tiny.
    let worst = 0;
    for (let i = 100; i < out.length - 100; i++) worst = Math.max(worst, Math.abs(out[i]! - expected[i]!));
    expect(worst).toBeLessThan(0.005);
  });

  test('the output does not depend on how the input is cut into frames', () => {
    const input = tone(48_000, 1000, 0.5);
    const whole = resampleInFrames(new StreamResampler(48_000, 24_000), input, [input.length]);
    const framed = resampleInFrames(new StreamResampler(48_000, 24_000), input, [128, 7, 2400, 1, 333]);
    expect(framed.length).toBe(whole.length);
    expect(framed.length).toBe(12_000);
    let worst = 0;
    for (let i = 0; i < whole.length; i++) worst = Math.max(worst, Math.abs(framed[i]! - whole[i]!));
    expect(worst).toBeLessThan(1e-6);
  });

  test('48 kHz to 24 kHz keeps speech frequencies and removes what would alias', () => {
    const speech = resampleInFrames(new StreamResampler(48_000, 24_000), tone(48_000, 3000, 0.5), [2400]);
    expect(rmsOf(speech.subarray(200, -200))).toBeCloseTo(0.5 / Math.SQRT2, 2);
    // 15 kHz is above the 12 kHz Nyquist of 24 kHz: it would fold to 9 kHz without the filter.
    const high = resampleInFrames(new StreamResampler(48_000, 24_000), tone(48_000, 15_000, 0.5), [2400]);
    expect(rmsOf(high.subarray(200, -200))).toBeLessThan(0.01);
  });

  test('44.1 kHz to 24 kHz: lengths add up and a constant stays constant', () => {
    const out = resampleInFrames(
      new StreamResampler(44_100, 24_000),
      new Float32Array(44_100).fill(0.25),
      [441],
    );
    expect(out.length).toBe(24_000);
    for (const x of out.subarray(100, -100)) expect(x).toBeCloseTo(0.25, 5);
  });

  test('equal rates pass frames through as copies', () => {
    const resampler = new StreamResampler(24_000, 24_000);
    const frame = tone(24_000, 300, 0.01);
    const out = resampler.process(frame);
    expect(out).toEqual(frame);
    expect(out).not.toBe(frame);
    expect(resampler.flush()).toHaveLength(0);
  });

  test('rejects a rate that is not positive', () => {
    expect(() => new StreamResampler(0, 24_000)).toThrow(RangeError);
  });
});

describe('pcm16 and base64', () => {
  test('float samples become 16-bit little-endian, clipped at full scale', () => {
    const bytes = pcm16(Float32Array.from([0, 1, -1, 0.5, -0.5, 2, -3]));
    const view = new DataView(bytes.buffer);
    const values = Array.from({ length: 7 }, (_, i) => view.getInt16(i * 2, true));
    expect(values).toEqual([0, 32767, -32768, 16384, -16384, 32767, -32768]);
    // Little-endian on the wire whatever the machine: 32767 is ff 7f.
    expect([bytes[2], bytes[3]]).toEqual([0xff, 0x7f]);
  });

  test('base64 matches the standard encoding for every padding case', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 6, 255, 1000]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + 11) & 255);
      expect(base64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });
});
