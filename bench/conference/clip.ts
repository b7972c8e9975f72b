// The clip every room's publisher loops: the committed JFK speech clip, then silence.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { rms, SENSITIVITY } from '@live-captions/capture';
import { SPEECH_CLIP } from '../../services/sources/test/helpers/stack.js';

export const SILENCE_S = 6;
const SAMPLE_RATE = 16_000;
const FRAME = 800;

/** The clip with its silence (what the publishers loop), and where its speech ends. */
export function prepareClip(dir: string): { wav: string; speechEnd: number; period: number } {
  const wav = join(dir, 'speech-then-silence.wav');
  const ff = ['-hide_banner', '-loglevel', 'error'];
  execFileSync('ffmpeg', [
    ...ff,
    '-i',
    SPEECH_CLIP,
    '-af',
    `apad=pad_dur=${SILENCE_S}`,
    '-ac',
    '1',
    '-ar',
    String(SAMPLE_RATE),
    '-y',
    wav,
  ]);
  const raw = execFileSync('ffmpeg', [...ff, '-i', wav, '-f', 'f32le', 'pipe:1'], {
    maxBuffer: 64 * 2 ** 20,
  });
  const samples = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  let last = 0;
  for (let i = 0; i + FRAME <= samples.length; i += FRAME)
    if (rms(samples.subarray(i, i + FRAME)) >= SENSITIVITY.normal) last = i + FRAME;
  return { wav, speechEnd: last / SAMPLE_RATE, period: samples.length / SAMPLE_RATE };
}
export type Clip = ReturnType<typeof prepareClip>;
