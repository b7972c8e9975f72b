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
