/**
 * RIFF/WAVE reader for the `/v1` routes: PCM 16/24/32-bit integer and 32-bit IEEE float
 * (plain or WAVE_FORMAT_EXTENSIBLE), mono or stereo (averaged), 8-48 kHz, resampled to the
 * 16 kHz mono float32 the engine takes. Chunks other than `fmt ` and `data` are skipped.
 * Statuses follow the contract: not RIFF/WAVE, compressed, > 2 channels or a rate outside
 * 8-48 kHz -> 415; truncated -> 400; shorter than 0.01 s or longer than 12 s -> 413.
 */
import { HttpError, Messages } from './errors.js';
import { MAX_SECONDS, SAMPLE_RATE } from './pcm.js';
import { resample } from './resample.js';

// Bound locally: global lookups are slow in per-sample loops inside vm contexts (jest).
const finite = Number.isFinite;

const MIN_SECONDS = 0.01;
const MIN_RATE = 8_000;
const MAX_RATE = 48_000;

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
  /** Mono float32 at 16 kHz. */
  samples: Float32Array;
}

const unsupported = () => new HttpError(415, Messages.wavUnsupported, { param: 'file' });
const truncated = () => new HttpError(400, Messages.wavTruncated, { param: 'file' });

function readFormat(buf: Buffer, offset: number, size: number): WavFormat {
  if (size < 16) throw unsupported();
  let format = buf.readUInt16LE(offset);
  const channels = buf.readUInt16LE(offset + 2);
  const sampleRate = buf.readUInt32LE(offset + 4);
  const blockAlign = buf.readUInt16LE(offset + 12);
  const bitsPerSample = buf.readUInt16LE(offset + 14);
  if (format === FORMAT_EXTENSIBLE) {
    // cbSize(2) validBits(2) channelMask(4) subFormat GUID(16): the GUID starts with the format tag.
    if (size < 40) throw unsupported();
    format = buf.readUInt16LE(offset + 24);
  }
  const intOk =
    format === FORMAT_PCM && (bitsPerSample === 16 || bitsPerSample === 24 || bitsPerSample === 32);
  const floatOk = format === FORMAT_FLOAT && bitsPerSample === 32;
  if (!intOk && !floatOk) throw unsupported();
  if (channels < 1) throw unsupported();
  if (channels > 2) throw new HttpError(415, Messages.wavChannels, { param: 'file' });
  if (sampleRate < MIN_RATE || sampleRate > MAX_RATE) {
    throw new HttpError(415, Messages.wavRate, { param: 'file' });
  }
  if (blockAlign !== channels * (bitsPerSample / 8)) throw unsupported();
  return { format: format as 1 | 3, channels, sampleRate, bitsPerSample, blockAlign };
}

/** Locates `fmt ` and `data`; throws the contract's statuses. */
function readWavLayout(buf: Buffer): { fmt: WavFormat; dataOffset: number; dataLength: number } {
  if (
    buf.length < 12 ||
    buf.toString('latin1', 0, 4) !== 'RIFF' ||
    buf.toString('latin1', 8, 12) !== 'WAVE'
  ) {
    throw unsupported();
  }
  let fmt: WavFormat | undefined;
  let offset = 12;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('latin1', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (body + size > buf.length) throw truncated();
      fmt = readFormat(buf, body, size);
    } else if (id === 'data') {
      if (!fmt) throw unsupported();
      if (body + size > buf.length) throw truncated();
      if (size % fmt.blockAlign !== 0) throw truncated();
      return { fmt, dataOffset: body, dataLength: size };
    }
    // Chunks are word-aligned: odd sizes carry one pad byte.
    offset = body + size + (size % 2);
  }
  if (!fmt) throw unsupported();
  throw truncated();
}

function sampleReader(fmt: WavFormat): (buf: Buffer, at: number) => number {
  if (fmt.format === FORMAT_FLOAT) return (buf, at) => buf.readFloatLE(at);
  switch (fmt.bitsPerSample) {
    case 16:
      return (buf, at) => buf.readInt16LE(at) / 32_768;
    case 24:
      return (buf, at) => buf.readIntLE(at, 3) / 8_388_608;
    default:
      return (buf, at) => buf.readInt32LE(at) / 2_147_483_648;
  }
}

/** Parses and converts a WAV file to 16 kHz mono float32. */
export function decodeWav(buf: Buffer): DecodedWav {
  const { fmt, dataOffset, dataLength } = readWavLayout(buf);
  const frames = dataLength / fmt.blockAlign;
  const seconds = frames / fmt.sampleRate;
  if (seconds > MAX_SECONDS) throw new HttpError(413, Messages.audioTooLong, { param: 'file' });
  if (seconds < MIN_SECONDS) throw new HttpError(413, Messages.audioTooShort, { param: 'file' });

  const read = sampleReader(fmt);
  const bytes = fmt.bitsPerSample / 8;
  const mono = new Float32Array(frames);
  for (let frame = 0; frame < frames; frame += 1) {
    const at = dataOffset + frame * fmt.blockAlign;
    const value = fmt.channels === 1 ? read(buf, at) : (read(buf, at) + read(buf, at + bytes)) / 2;
    // Only float files can hold non-finite values; integer ones are in range by construction.
    if (!finite(value)) throw new HttpError(400, Messages.pcmSamples, { param: 'file' });
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
