import { SAMPLE_RATE } from '@live-captions/audio';

/** Below this peak a clip is silence and is never decoded (whisper hallucinates on silence). */
export const SILENCE_PEAK = 1e-4;

export function isSilent(samples: Float32Array): boolean {
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i]!;
    if (sample >= SILENCE_PEAK || sample <= -SILENCE_PEAK) return false;
  }
  return true;
}

/** The samples between two times in seconds (a view, no copy). */
export function sliceSeconds(samples: Float32Array, from: number, to: number): Float32Array {
  const start = Math.max(0, Math.min(samples.length, Math.round(from * SAMPLE_RATE)));
  const end = Math.max(start, Math.min(samples.length, Math.round(to * SAMPLE_RATE)));
  return samples.subarray(start, end);
}

/** Float32 samples as bytes for transport (a view, no copy). */
export function samplesToBuffer(samples: Float32Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** Bytes back to float32 samples; copies only when the bytes are not 4-byte aligned. */
export function bufferToSamples(bytes: Buffer): Float32Array {
  if (bytes.byteLength % 4 !== 0) throw new RangeError('audio length is not a multiple of 4 bytes');
  if (bytes.byteOffset % 4 === 0)
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
