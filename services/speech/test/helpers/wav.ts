/** Builds WAV files and PCM bodies for tests with the shared codec (`@live-captions/audio`). */
import { encodeFloat32, encodeWav, type WavEncoding } from '@live-captions/audio';

export interface WavSpec extends Omit<WavEncoding, 'bits' | 'channels'> {
  channels: number;
  /** 16, 24 or 32 integer bits, or 32 float with `float: true`; others (8) for refusals. */
  bits: number;
  /** Raw format tag override (e.g. 2 for ADPCM), for refusals. */
  formatTag?: number;
}

/** Offset of the format tag in a plain file: RIFF header (12) + `fmt ` chunk header (8). */
const FORMAT_TAG_AT = 20;

/** Frames are interleaved channel values in [-1, 1]. */
export function buildWav(spec: WavSpec, interleaved: ArrayLike<number>): Buffer {
  const { formatTag, bits, ...encoding } = spec;
  // Layouts the codec cannot write (8-bit) are written as 16-bit and relabelled: only the header is read.
  const written = bits === 16 || bits === 24 || bits === 32 ? bits : 16;
  const file = Buffer.from(encodeWav(interleaved, { ...encoding, bits: written }));
  if (written !== bits) {
    file.writeUInt16LE(spec.channels * (bits / 8), 32);
    file.writeUInt16LE(bits, 34);
  }
  if (formatTag !== undefined)
    file.writeUInt16LE(formatTag, spec.extensible ? FORMAT_TAG_AT + 24 : FORMAT_TAG_AT);
  return file;
}

/** A sine of `seconds` at `rate`, amplitude `amp`. */
export function sine(rate: number, seconds: number, frequency: number, amp = 0.5): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i += 1) out[i] = amp * Math.sin((2 * Math.PI * frequency * i) / rate);
  return out;
}

/** Float32 little-endian PCM body for the native route. */
export function pcmBody(samples: ArrayLike<number>): Buffer {
  return Buffer.from(encodeFloat32(samples));
}
