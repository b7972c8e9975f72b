import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { base64, decodeFloat32, decodePcm16, encodeFloat32, encodePcm16 } from '../src/index.js';

describe('encodePcm16 and base64', () => {
  it('float samples become 16-bit little-endian, clipped at full scale', () => {
    const bytes = encodePcm16(Float32Array.from([0, 1, -1, 0.5, -0.5, 2, -3]));
    const view = new DataView(bytes.buffer);
    const values = Array.from({ length: 7 }, (_, i) => view.getInt16(i * 2, true));
    expect(values).toEqual([0, 32767, -32768, 16384, -16384, 32767, -32768]);
    // Little-endian on the wire whatever the machine: 32767 is ff 7f.
    expect([bytes[2], bytes[3]]).toEqual([0xff, 0x7f]);
  });

  it('base64 matches the standard encoding for every padding case', () => {
    for (const length of [0, 1, 2, 3, 4, 5, 6, 255, 1000]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + 11) & 255);
      expect(base64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });
});

describe('decodePcm16', () => {
  it('decodes 16-bit little-endian PCM', () => {
    const bytes = Buffer.from([0x00, 0x80, 0xff, 0x7f, 0x00, 0x00]);
    expect(Array.from(decodePcm16(bytes))).toEqual([-1, 32767 / 32768, 0]);
  });

  it('reads back what encodePcm16 wrote within half a step', () => {
    fc.assert(
      fc.property(fc.float32Array({ noNaN: true, min: -1, max: Math.fround(32767 / 32768) }), (samples) => {
        const back = decodePcm16(encodePcm16(samples));
        for (const [i, value] of back.entries())
          expect(Math.abs(value - samples[i]!)).toBeLessThanOrEqual(0.5 / 32768);
      }),
    );
  });
});

describe('encodeFloat32 and decodeFloat32', () => {
  it('round-trip exactly, little-endian on the wire', () => {
    fc.assert(
      fc.property(fc.float32Array({ noNaN: true }), (samples) => {
        const bytes = encodeFloat32(samples);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        for (const [i, value] of samples.entries()) expect(view.getFloat32(i * 4, true)).toBe(value);
        expect(decodeFloat32(bytes)).toEqual(samples);
      }),
    );
    // 1.0f is 00 00 80 3f little-endian.
    expect(Array.from(encodeFloat32([1]))).toEqual([0, 0, 0x80, 0x3f]);
  });

  it('refuses a length that is not whole samples', () => {
    expect(() => decodeFloat32(new Uint8Array(6))).toThrow(RangeError);
  });
});
