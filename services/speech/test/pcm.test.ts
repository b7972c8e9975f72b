import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { HttpError, Messages } from '../src/domain/errors.js';
import { decodePcm, MAX_PCM_BYTES } from '../src/domain/pcm.js';
import { pcmBody } from './helpers/wav.js';

const inRange = fc.float({ min: Math.fround(-1.01), max: Math.fround(1.01), noNaN: true });

function messageOf(run: () => unknown): string {
  try {
    run();
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return (error as HttpError).message;
  }
}

describe('decodePcm', () => {
  it('accepts any 160+ finite samples within 1.01 and returns them unchanged', () => {
    fc.assert(
      fc.property(fc.array(inRange, { minLength: 160, maxLength: 2000 }), (values) => {
        const samples = decodePcm(pcmBody(values));
        expect(Array.from(samples)).toEqual(values.map((v) => Math.fround(v)));
      }),
      { numRuns: 50 },
    );
  });

  it('refuses any body whose length is not whole float32 samples, or shorter than 160 samples', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4000 }), (length) => {
        const valid = length % 4 === 0 && length >= 640;
        expect(messageOf(() => decodePcm(Buffer.alloc(length)))).toBe(valid ? 'ok' : Messages.pcmLength);
      }),
    );
    expect(messageOf(() => decodePcm(Buffer.alloc(MAX_PCM_BYTES + 4)))).toBe(Messages.pcmLength);
    expect(messageOf(() => decodePcm(Buffer.alloc(MAX_PCM_BYTES)))).toBe('ok');
  });

  it('refuses any body with one non-finite or out-of-range sample, wherever it is', () => {
    const bad = fc.oneof(
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
      fc.float({ min: Math.fround(1.0101), noNaN: true }),
      fc.float({ max: Math.fround(-1.0101), noNaN: true }),
    );
    fc.assert(
      fc.property(
        fc.array(inRange, { minLength: 160, maxLength: 800 }),
        bad,
        fc.nat(),
        (values, value, at) => {
          values[at % values.length] = value;
          expect(messageOf(() => decodePcm(pcmBody(values)))).toBe(Messages.pcmSamples);
        },
      ),
    );
  });
});
