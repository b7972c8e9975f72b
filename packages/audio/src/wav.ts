/**
 * RIFF/WAVE, both ways. The reader takes PCM 16/24/32-bit integer and 32-bit IEEE float (plain or
 * WAVE_FORMAT_EXTENSIBLE), mono or stereo (averaged), 8-48 kHz, and gives the 16 kHz mono float32
 * the engine takes; chunks other than `fmt ` and `data` are skipped. Each refusal is a
 * {@link WavError} whose `problem` the speech gateway turns into its contract's status and words.
 * The writer makes the same layouts (tests, benchmarks).
 */
import { MAX_CLIP_SECONDS, MIN_CLIP_SECONDS, SAMPLE_RATE } from './limits.js';
import { resample } from './resample.js';

// Bound locally: global lookups are slow in per-sample loops inside vm contexts (jest).
const finite = Number.isFinite;

export const WAV_MIN_RATE = 8_000;
export const WAV_MAX_RATE = 48_000;

const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_EXTENSIBLE = 0xfffe;

export interface WavFormat {
  /** 1 = integer PCM, 3 = IEEE float (resolved through WAVE_FORMAT_EXTENSIBLE). */
  format: 1 | 3;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  blockAlign: number;
}

export interface DecodedWav extends WavFormat {
  /** Frames in the file (before resampling). */
  frames: number;
  /** Mono float32 at 16 kHz, in [-1, 1]. */
  samples: Float32Array;
}

/**
 * - `unsupported`: not RIFF/WAVE, compressed, or an odd layout; `channels`: more than two;
 *   `rate`: outside 8-48 kHz;
 * - `truncated`: the data ends early; `samples`: a float sample that is not finite;
 * - `tooShort` / `tooLong`: outside the clip bounds.
 */
export type WavProblem =
  | 'unsupported'
  | 'channels'
  | 'rate'
  | 'truncated'
  | 'samples'
  | 'tooShort'
  | 'tooLong';

export class WavError extends Error {
  constructor(readonly problem: WavProblem) {
    super(`WAV refused: ${problem}`);
    this.name = 'WavError';
  }
}

/** Durations a clip may have, in seconds; the contract's by default. */
export interface ClipBounds {
  minSeconds: number;
  maxSeconds: number;
}

export const CLIP_BOUNDS: ClipBounds = { minSeconds: MIN_CLIP_SECONDS, maxSeconds: MAX_CLIP_SECONDS };

const chunkId = (bytes: Uint8Array, at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));

function readFormat(view: DataView, offset: number, size: number): WavFormat {
  if (size < 16) throw new WavError('unsupported');
  let format = view.getUint16(offset, true);
  const channels = view.getUint16(offset + 2, true);
  const sampleRate = view.getUint32(offset + 4, true);
  const blockAlign = view.getUint16(offset + 12, true);
  const bitsPerSample = view.getUint16(offset + 14, true);
  if (format === FORMAT_EXTENSIBLE) {
    // cbSize(2) validBits(2) channelMask(4) subFormat GUID(16): the GUID starts with the format tag.
    if (size < 40) throw new WavError('unsupported');
    format = view.getUint16(offset + 24, true);
  }
  const intOk =
    format === FORMAT_PCM && (bitsPerSample === 16 || bitsPerSample === 24 || bitsPerSample === 32);
  const floatOk = format === FORMAT_FLOAT && bitsPerSample === 32;
  if (!intOk && !floatOk) throw new WavError('unsupported');
  if (channels < 1) throw new WavError('unsupported');
  if (channels > 2) throw new WavError('channels');
  if (sampleRate < WAV_MIN_RATE || sampleRate > WAV_MAX_RATE) throw new WavError('rate');
  if (blockAlign !== channels * (bitsPerSample / 8)) throw new WavError('unsupported');
  return { format: format as 1 | 3, channels, sampleRate, bitsPerSample, blockAlign };
}

/** Locates `fmt ` and `data`. */
function readLayout(
  bytes: Uint8Array,
  view: DataView,
): { fmt: WavFormat; dataOffset: number; dataLength: number } {
  if (bytes.length < 12 || chunkId(bytes, 0) !== 'RIFF' || chunkId(bytes, 8) !== 'WAVE') {
    throw new WavError('unsupported');
  }
  let fmt: WavFormat | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = chunkId(bytes, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (body + size > bytes.length) throw new WavError('truncated');
      fmt = readFormat(view, body, size);
    } else if (id === 'data') {
      if (!fmt) throw new WavError('unsupported');
      if (body + size > bytes.length || size % fmt.blockAlign !== 0) throw new WavError('truncated');
      return { fmt, dataOffset: body, dataLength: size };
    }
    // Chunks are word-aligned: odd sizes carry one pad byte.
    offset = body + size + (size % 2);
  }
  if (!fmt) throw new WavError('unsupported');
  throw new WavError('truncated');
}

function sampleReader(fmt: WavFormat, view: DataView): (at: number) => number {
  if (fmt.format === FORMAT_FLOAT) return (at) => view.getFloat32(at, true);
  switch (fmt.bitsPerSample) {
    case 16:
      return (at) => view.getInt16(at, true) / 32_768;
    case 24:
      // Low 16 bits unsigned, high 8 bits signed.
      return (at) => (view.getUint16(at, true) + view.getInt8(at + 2) * 65_536) / 8_388_608;
    default:
      return (at) => view.getInt32(at, true) / 2_147_483_648;
  }
}

/** Parses a WAV file into 16 kHz mono float32 in [-1, 1]; throws {@link WavError}. */
export function decodeWav(bytes: Uint8Array, bounds: ClipBounds = CLIP_BOUNDS): DecodedWav {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { fmt, dataOffset, dataLength } = readLayout(bytes, view);
  const frames = dataLength / fmt.blockAlign;
  const seconds = frames / fmt.sampleRate;
  if (seconds > bounds.maxSeconds) throw new WavError('tooLong');
  if (seconds < bounds.minSeconds) throw new WavError('tooShort');

  const read = sampleReader(fmt, view);
  const width = fmt.bitsPerSample / 8;
  const mono = new Float32Array(frames);
  for (let frame = 0; frame < frames; frame += 1) {
    const at = dataOffset + frame * fmt.blockAlign;
    const value = fmt.channels === 1 ? read(at) : (read(at) + read(at + width)) / 2;
    // Only float files can hold non-finite values; integer ones are in range by construction.
    if (!finite(value)) throw new WavError('samples');
    mono[frame] = value;
  }
  const samples = fmt.sampleRate === SAMPLE_RATE ? mono : resample(mono, fmt.sampleRate, SAMPLE_RATE);
  // Float files may exceed full scale and resampling may overshoot a little: the engine gets [-1, 1].
  for (let i = 0; i < samples.length; i += 1) {
    const value = samples[i]!;
    if (value > 1) samples[i] = 1;
    else if (value < -1) samples[i] = -1;
  }
  return { ...fmt, frames, samples };
}

export interface WavEncoding {
  sampleRate: number;
  /** @defaultValue 1 */
  channels?: number;
  /** 16, 24 or 32 integer bits, or 32 with `float`. @defaultValue 16 */
  bits?: 16 | 24 | 32;
  float?: boolean;
  /** A WAVE_FORMAT_EXTENSIBLE header instead of the plain one. */
  extensible?: boolean;
  /** Chunks between `fmt ` and `data` (odd sizes get their pad byte). */
  extraChunks?: { id: string; data: Uint8Array }[];
}

function chunk(id: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(8 + data.length + (data.length % 2));
  for (let i = 0; i < 4; i += 1) out[i] = id.charCodeAt(i);
  new DataView(out.buffer).setUint32(4, data.length, true);
  out.set(data, 8);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((offset, part) => {
    out.set(part, offset);
    return offset + part.length;
  }, 0);
  return out;
}

/** Interleaved samples in [-1, 1] (clipped beyond) in the encoding's sample format. */
function encodeSamples(interleaved: ArrayLike<number>, bits: number, float: boolean): Uint8Array {
  const width = bits / 8;
  const out = new Uint8Array(interleaved.length * width);
  const view = new DataView(out.buffer);
  // The reader's exact inverse (x * 2^(bits-1)), clipped, as for 16-bit PCM.
  const full = 2 ** (bits - 1);
  for (let i = 0; i < interleaved.length; i += 1) {
    const value = interleaved[i]!;
    const at = i * width;
    if (float) {
      view.setFloat32(at, value, true);
      continue;
    }
    const int = Math.max(-full, Math.min(full - 1, Math.round(value * full)));
    if (bits === 16) view.setInt16(at, int, true);
    else if (bits === 32) view.setInt32(at, int, true);
    else {
      view.setUint16(at, int & 0xffff, true);
      view.setInt8(at + 2, int >> 16);
    }
  }
  return out;
}

/** A WAV file of interleaved samples in [-1, 1]. */
export function encodeWav(interleaved: ArrayLike<number>, encoding: WavEncoding): Uint8Array {
  const channels = encoding.channels ?? 1;
  const bits = encoding.bits ?? 16;
  const tag = encoding.float ? FORMAT_FLOAT : FORMAT_PCM;
  const blockAlign = channels * (bits / 8);
  const fmt = new Uint8Array(encoding.extensible ? 40 : 16);
  const view = new DataView(fmt.buffer);
  if (encoding.extensible) {
    view.setUint16(0, FORMAT_EXTENSIBLE, true);
    view.setUint16(16, 22, true);
    view.setUint16(18, bits, true);
    view.setUint32(20, channels === 1 ? 4 : 3, true);
    view.setUint16(24, tag, true);
    // The rest of KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT's GUID.
    fmt.set([0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71], 26);
  } else {
    view.setUint16(0, tag, true);
  }
  view.setUint16(2, channels, true);
  view.setUint32(4, encoding.sampleRate, true);
  view.setUint32(8, encoding.sampleRate * blockAlign, true);
  view.setUint16(12, blockAlign, true);
  view.setUint16(14, bits, true);
  const body = concat([
    Uint8Array.from('WAVE', (c) => c.charCodeAt(0)),
    chunk('fmt ', fmt),
    ...(encoding.extraChunks ?? []).map((extra) => chunk(extra.id, extra.data)),
    chunk('data', encodeSamples(interleaved, bits, encoding.float === true)),
  ]);
  return chunk('RIFF', body).subarray(0, 8 + body.length);
}
