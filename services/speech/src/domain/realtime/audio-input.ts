/**
 * The audio of `input_audio_buffer.append` events, in the session's format, turned into the
 * 16 kHz float samples the VAD and whisper take. Resampling runs on a stream: each chunk is
 * filtered with the samples around it, so 20 ms chunks come out as if the whole clip had been
 * converted at once (no clicks at chunk edges, which the VAD would hear).
 */
import { SAMPLE_RATE } from '../pcm.js';
import { resample } from '../resample.js';
import { A_LAW, decodeG711, MU_LAW } from './g711.js';

export type AudioFormat = 'pcm16' | 'pcmu' | 'pcma';

/** `audio/pcm` is 24 kHz 16-bit little-endian mono; G.711 is 8 kHz, one byte a sample. */
export const FORMAT_RATE: Record<AudioFormat, number> = { pcm16: 24_000, pcmu: 8_000, pcma: 8_000 };

/** Input samples kept on each side of a chunk: more than the resampler's filter reaches. */
const MARGIN_SECONDS = 0.004;

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Bytes of one sample; an append must hold whole samples. */
export const bytesPerSample = (format: AudioFormat) => (format === 'pcm16' ? 2 : 1);

/** Raw bytes to floats at the format's own rate. */
export function decodeSamples(bytes: Uint8Array, format: AudioFormat): Float32Array {
  if (format === 'pcmu') return decodeG711(bytes, MU_LAW);
  if (format === 'pcma') return decodeG711(bytes, A_LAW);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength >> 1);
  for (let i = 0; i < out.length; i += 1) out[i] = view.getInt16(i * 2, true) / 32768;
  return out;
}

/**
 * Streaming conversion from `fromRate` to 16 kHz. Chunks are converted in blocks that start on
 * an input sample where the rate ratio realigns, with {@link MARGIN_SECONDS} of input on each
 * side; the output therefore lags the input by that margin (4 ms).
 */
export class StreamResampler {
  private readonly down: number;
  private readonly up: number;
  private readonly margin: number;
  /** Input not converted yet, preceded by `margin` samples of history. */
  private pending: Float32Array;

  constructor(private readonly fromRate: number) {
    const divisor = gcd(fromRate, SAMPLE_RATE);
    this.down = fromRate / divisor;
    this.up = SAMPLE_RATE / divisor;
    this.margin = Math.ceil((MARGIN_SECONDS * fromRate) / this.down) * this.down;
    this.pending = new Float32Array(this.margin);
  }

  /** The 16 kHz samples that `input` (with what came before) makes final. */
  push(input: Float32Array): Float32Array {
    if (this.fromRate === SAMPLE_RATE) return input.slice();
    const joined = new Float32Array(this.pending.length + input.length);
    joined.set(this.pending);
    joined.set(input, this.pending.length);
    // Convert whole ratio periods that have a full margin of input after them.
    const ready = Math.floor((joined.length - 2 * this.margin) / this.down) * this.down;
    if (ready <= 0) {
      this.pending = joined;
      return new Float32Array(0);
    }
    const window = joined.subarray(0, this.margin + ready + this.margin);
    const converted = resample(window, this.fromRate, SAMPLE_RATE);
    const first = (this.margin / this.down) * this.up;
    const out = converted.slice(first, first + (ready / this.down) * this.up);
    this.pending = joined.slice(ready);
    return out;
  }

  /**
   * The samples `push` still holds back, converted as if the input stopped here (a commit or a
   * clear cuts the stream there): all of the input comes out but for under one ratio period
   * (under 0.2 ms). The stream goes on after it as before, only the last 4 ms out were filtered
   * without the input that follows them.
   */
  flush(): Float32Array {
    const held = this.pending.length - this.margin;
    const ready = Math.floor(held / this.down) * this.down;
    if (this.fromRate === SAMPLE_RATE || ready <= 0) return new Float32Array(0);
    const window = new Float32Array(this.margin + ready + this.margin);
    window.set(this.pending.subarray(0, window.length));
    const converted = resample(window, this.fromRate, SAMPLE_RATE);
    const first = (this.margin / this.down) * this.up;
    const out = converted.slice(first, first + (ready / this.down) * this.up);
    this.pending = this.pending.slice(ready);
    return out;
  }
}
