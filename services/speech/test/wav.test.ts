import { readdirSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { audioDir } from '@live-captions/test-services/fixtures';
import fc from 'fast-check';
import { HttpError, Messages } from '../src/domain/errors.js';
import { decodeWavUpload } from '../src/domain/wav.js';
import { buildWav, type WavSpec } from './helpers/wav.js';

const AUDIO_DIR = pathToFileURL(`${audioDir}/`);

const formats: { bits: number; float: boolean; step: number }[] = [
  { bits: 16, float: false, step: 1 / 32768 },
  { bits: 24, float: false, step: 1 / 8388608 },
  { bits: 32, float: false, step: 1 / 2147483648 },
  { bits: 32, float: true, step: 1e-7 },
];

const chunkId = fc
  .string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ '.split('')),
    minLength: 4,
    maxLength: 4,
  })
  .filter((id) => id !== 'fmt ' && id !== 'data');
const extraChunks = fc.array(
  fc.record({ id: chunkId, data: fc.uint8Array({ maxLength: 41 }).map((bytes) => Buffer.from(bytes)) }),
  { maxLength: 3 },
);
const sample = fc.double({ min: -1, max: 0.999, noNaN: true });

function statusOf(run: () => unknown): number | 'ok' {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
}

describe('decodeWav', () => {
  it('reads every supported layout at 16 kHz exactly (up to quantization), averaging stereo and skipping chunks', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...formats),
        fc.constantFrom(1, 2),
        fc.boolean(),
        extraChunks,
        fc.array(sample, { minLength: 320, maxLength: 1200 }),
        (format, channels, extensible, extra, values) => {
          const frames = Math.floor(values.length / channels);
          const interleaved = values.slice(0, frames * channels);
          const spec: WavSpec = {
            sampleRate: 16000,
            channels,
            bits: format.bits,
            float: format.float,
            extensible,
            extraChunks: extra,
          };
          const wav = decodeWavUpload(buildWav(spec, interleaved));
          expect(wav.frames).toBe(frames);
          expect(wav.samples.length).toBe(frames);
          for (let frame = 0; frame < frames; frame += 1) {
            const expected =
              channels === 1
                ? interleaved[frame]!
                : (interleaved[2 * frame]! + interleaved[2 * frame + 1]!) / 2;
            expect(Math.abs(wav.samples[frame]! - expected)).toBeLessThanOrEqual(format.step + 1e-7);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('resamples any rate in 8-48 kHz to 16 kHz with the expected length and full-scale bounds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8000, max: 48000 }),
        fc.constantFrom(...formats),
        fc.constantFrom(1, 2),
        fc.array(sample, { minLength: 1, maxLength: 64 }),
        (rate, format, channels, pattern) => {
          const frames = Math.ceil(rate * 0.05);
          const interleaved = Array.from(
            { length: frames * channels },
            (_, i) => pattern[i % pattern.length]!,
          );
          const wav = decodeWavUpload(
            buildWav({ sampleRate: rate, channels, bits: format.bits, float: format.float }, interleaved),
          );
          expect(wav.sampleRate).toBe(rate);
          expect(wav.samples.length).toBe(Math.round((frames * 16000) / rate));
          for (const value of wav.samples) expect(Math.abs(value)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers 400 for truncated data, whatever is cut', () => {
    fc.assert(
      fc.property(fc.constantFrom(...formats), fc.integer({ min: 1, max: 400 }), (format, cut) => {
        const file = buildWav(
          { sampleRate: 16000, channels: 1, bits: format.bits, float: format.float },
          new Array(800).fill(0.1),
        );
        const status = statusOf(() => decodeWavUpload(file.subarray(0, file.length - cut)));
        expect(status).toBe(400);
      }),
    );
  });

  it('never fails with anything but a contract status on arbitrary bytes, with or without a RIFF header', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.uint8Array({ maxLength: 400 }), (riff, bytes) => {
        const head = riff ? Buffer.from('RIFF\0\0\0\0WAVE', 'latin1') : Buffer.alloc(0);
        const status = statusOf(() => decodeWavUpload(Buffer.concat([head, Buffer.from(bytes)])));
        expect([400, 413, 415]).toContain(status);
      }),
    );
  });

  it('refuses compressed, 8-bit, 64-bit float, multichannel and out-of-range rates with 415', () => {
    const frames = new Array(1600).fill(0);
    expect(
      statusOf(() =>
        decodeWavUpload(buildWav({ sampleRate: 16000, channels: 1, bits: 16, formatTag: 2 }, frames)),
      ),
    ).toBe(415);
    expect(statusOf(() => decodeWavUpload(buildWav({ sampleRate: 16000, channels: 1, bits: 8 }, [])))).toBe(
      415,
    );
    const three = () =>
      decodeWavUpload(buildWav({ sampleRate: 16000, channels: 3, bits: 16 }, new Array(4800).fill(0)));
    expect(() => three()).toThrow(Messages.wavChannels);
    expect(() => decodeWavUpload(buildWav({ sampleRate: 7999, channels: 1, bits: 16 }, frames))).toThrow(
      Messages.wavRate,
    );
    expect(() => decodeWavUpload(buildWav({ sampleRate: 48001, channels: 1, bits: 16 }, frames))).toThrow(
      Messages.wavRate,
    );
    expect(statusOf(() => decodeWavUpload(Buffer.from('ID3\u0004 not a wav at all', 'latin1')))).toBe(415);
    expect(statusOf(() => decodeWavUpload(Buffer.from('RIFF\0\0\0\0AVI LIST', 'latin1')))).toBe(415);
  });

  it('answers 413 outside 0.01-12 s and 400 for non-finite float samples', () => {
    expect(() =>
      decodeWavUpload(
        buildWav({ sampleRate: 8000, channels: 1, bits: 16 }, new Array(8000 * 12 + 1).fill(0)),
      ),
    ).toThrow(Messages.audioTooLong);
    expect(
      decodeWavUpload(buildWav({ sampleRate: 8000, channels: 1, bits: 16 }, new Array(8000 * 12).fill(0)))
        .samples.length,
    ).toBe(192000);
    expect(() =>
      decodeWavUpload(buildWav({ sampleRate: 16000, channels: 1, bits: 16 }, new Array(159).fill(0))),
    ).toThrow(Messages.audioTooShort);
    const nan = buildWav({ sampleRate: 16000, channels: 1, bits: 32, float: true }, [
      ...new Array(200).fill(0),
      Number.NaN,
    ]);
    expect(() => decodeWavUpload(nan)).toThrow(Messages.pcmSamples);
  });

  it('reads every shared sample file (LIST chunk before data included) at its stated duration', () => {
    const manifest = JSON.parse(readFileSync(new URL('manifest.json', AUDIO_DIR), 'utf8')) as {
      file: string;
      duration_s: number;
    }[];
    const files = readdirSync(AUDIO_DIR).filter((name) => name.endsWith('.wav'));
    expect(files.length).toBeGreaterThan(10);
    for (const entry of manifest) {
      const wav = decodeWavUpload(readFileSync(new URL(entry.file, AUDIO_DIR)));
      expect(Math.abs(wav.samples.length / 16000 - entry.duration_s)).toBeLessThan(0.01);
    }
  });
});
