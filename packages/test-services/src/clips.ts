/**
 * The fixtures' audio as samples: the clips of `fixtures/audio` decoded with the shared codec, and
 * generated signals. A subpath of its own, apart from `./fixtures`, because the scripts that only
 * need paths run without the workspace's source condition and must not load `@live-captions/audio`.
 */
import { readFileSync } from 'node:fs';
import { decodeWav, SAMPLE_RATE } from '@live-captions/audio';
import { audioFixture } from './fixtures.js';

/** A clip of `fixtures/audio` as 16 kHz mono float32, whatever its length. */
export function readClip(file: string): Float32Array {
  return decodeWav(readFileSync(audioFixture(file)), { minSeconds: 0, maxSeconds: Number.POSITIVE_INFINITY })
    .samples;
}

/**
 * Deterministic white noise (xorshift), 16 kHz mono, uniform in [-amplitude, amplitude]: the
 * generated fixture on which a model without voice activity detection hallucinates.
 */
export function whiteNoise(seconds: number, amplitude: number, seed = 0x9e3779b9): Float32Array {
  const out = new Float32Array(Math.round(seconds * SAMPLE_RATE));
  let x = seed;
  for (let i = 0; i < out.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = ((x >>> 0) / 0xffffffff - 0.5) * 2 * amplitude;
  }
  return out;
}
