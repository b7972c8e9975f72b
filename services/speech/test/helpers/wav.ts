/** Builds WAV files for tests: any supported (and some unsupported) layouts, extra chunks. */

export interface WavSpec {
  sampleRate: number;
  channels: number;
  /** 16, 24 or 32 integer bits, or 32 float with `float: true`. */
  bits: number;
  float?: boolean;
  /** WAVE_FORMAT_EXTENSIBLE header instead of the plain one. */
  extensible?: boolean;
  /** Chunks inserted between `fmt ` and `data` (odd sizes get their pad byte). */
  extraChunks?: { id: string; data: Buffer }[];
  /** Raw format tag override (e.g. 2 for ADPCM). */
  formatTag?: number;
}

function chunk(id: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 === 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** Frames are interleaved channel values in [-1, 1]. */
export function encodeSamples(spec: WavSpec, interleaved: ArrayLike<number>): Buffer {
  const bytes = spec.bits / 8;
  const out = Buffer.alloc(interleaved.length * bytes);
  for (let i = 0; i < interleaved.length; i += 1) {
    const value = interleaved[i]!;
    const at = i * bytes;
    if (spec.float) out.writeFloatLE(value, at);
    else if (spec.bits === 16)
      out.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(value * 32768))), at);
    else if (spec.bits === 24)
      out.writeIntLE(Math.max(-8388608, Math.min(8388607, Math.round(value * 8388608))), at, 3);
    else out.writeInt32LE(Math.max(-2147483648, Math.min(2147483647, Math.round(value * 2147483648))), at);
  }
  return out;
}

export function buildWav(spec: WavSpec, interleaved: ArrayLike<number>): Buffer {
  const tag = spec.formatTag ?? (spec.float ? 3 : 1);
  const blockAlign = spec.channels * (spec.bits / 8);
  let fmt: Buffer;
  if (spec.extensible) {
    fmt = Buffer.alloc(40);
    fmt.writeUInt16LE(0xfffe, 0);
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(spec.bits, 18);
    fmt.writeUInt32LE(spec.channels === 1 ? 4 : 3, 20);
    fmt.writeUInt16LE(tag, 24);
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(fmt, 26);
  } else {
    fmt = Buffer.alloc(16);
    fmt.writeUInt16LE(tag, 0);
  }
  fmt.writeUInt16LE(spec.channels, 2);
  fmt.writeUInt32LE(spec.sampleRate, 4);
  fmt.writeUInt32LE(spec.sampleRate * blockAlign, 8);
  fmt.writeUInt16LE(blockAlign, 12);
  fmt.writeUInt16LE(spec.bits, 14);
  const body = Buffer.concat([
    Buffer.from('WAVE', 'latin1'),
    chunk('fmt ', fmt),
    ...(spec.extraChunks ?? []).map((extra) => chunk(extra.id, extra.data)),
    chunk('data', encodeSamples(spec, interleaved)),
  ]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** A sine of `seconds` at `rate`, amplitude `amp`. */
export function sine(rate: number, seconds: number, frequency: number, amp = 0.5): Float32Array {
  const out = new Float32Array(Math.round(rate * seconds));
  for (let i = 0; i < out.length; i += 1) out[i] = amp * Math.sin((2 * Math.PI * frequency * i) / rate);
  return out;
}

/** Float32 little-endian PCM body for the native route. */
export function pcmBody(samples: ArrayLike<number>): Buffer {
  const out = Buffer.alloc(samples.length * 4);
  for (let i = 0; i < samples.length; i += 1) out.writeFloatLE(samples[i]!, i * 4);
  return out;
}
