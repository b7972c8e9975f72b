/** Chromium's fake microphone input for the browser suite. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeWav, encodeWav, SAMPLE_RATE } from '@live-captions/audio';

/**
 * A canonical PCM WAV of the clip (fmt + data only, 16 kHz mono 16-bit) for chromium's fake
 * microphone, with `silenceSeconds` of silence appended so that every loop ends with a pause the
 * page detects.
 */
export function fakeMicrophoneWav(source: string, dir: string, silenceSeconds = 0.6): string {
  const clip = decodeWav(readFileSync(source), {
    minSeconds: 0,
    maxSeconds: Number.POSITIVE_INFINITY,
  }).samples;
  const samples = new Float32Array(clip.length + Math.round(silenceSeconds * SAMPLE_RATE));
  samples.set(clip);
  const path = join(dir, 'microphone.wav');
  writeFileSync(path, encodeWav(samples, { sampleRate: SAMPLE_RATE }));
  return path;
}
