/**
 * The native route's body: little-endian float32, mono, 16 kHz, normalized to [-1, 1].
 */
import { decodeFloat32, MAX_CLIP_SAMPLES, MIN_CLIP_SAMPLES } from '@live-captions/audio';
import { HttpError, Messages } from './errors.js';

// Bound locally: global lookups are slow in per-sample loops inside vm contexts (jest).
const finite = Number.isFinite;
const { abs } = Math;

/** 12 s of float32 at 16 kHz: 768,000 bytes. */
export const MAX_PCM_BYTES = MAX_CLIP_SAMPLES * 4;
/** Tolerance above full scale for clients whose float conversion overshoots a little. */
const MAX_ABS_SAMPLE = 1.01;

/**
 * Step 10 of the contract: length (>= 160 samples, whole float32 samples) then sample values
 * (finite, |x| <= 1.01). Returns the samples as a Float32Array.
 */
export function decodePcm(body: Buffer): Float32Array {
  if (body.length % 4 !== 0 || body.length / 4 < MIN_CLIP_SAMPLES || body.length > MAX_PCM_BYTES) {
    throw new HttpError(400, Messages.pcmLength);
  }
  const samples = decodeFloat32(body);
  for (let i = 0; i < samples.length; i += 1) {
    const value = samples[i]!;
    if (!finite(value) || abs(value) > MAX_ABS_SAMPLE) throw new HttpError(400, Messages.pcmSamples);
  }
  return samples;
}
