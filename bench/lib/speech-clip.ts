// The clip the stream benches' publishers loop (bench ingest, bench conference): the committed JFK
// speech clip, then silence, at 16 kHz mono; decoded once, with where its speech ends.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { rms, SENSITIVITY } from '@live-captions/capture';
import { SPEECH_CLIP } from '../../services/sources/test/helpers/stack.js';

export const SAMPLE_RATE = 16_000;
/** 50 ms, as the stream sources' ffmpeg frames. */
export const FRAME = 800;

export interface SpeechClip {
  wav: string;
  samples: Float32Array;
  /** Seconds from the start to the end of speech. */
  speechEnd: number;
  /** Seconds of one loop (speech and silence). */
  period: number;
}

/** Writes the clip with `silenceS` of silence after the speech into `dir`; its samples and times. */
export function prepareSpeechClip(dir: string, silenceS: number): SpeechClip {
  const wav = join(dir, 'speech-then-silence.wav');
  const quiet = ['-hide_banner', '-loglevel', 'error'];
  execFileSync('ffmpeg', [
    ...quiet,
    '-i',
    SPEECH_CLIP,
    '-af',
    `apad=pad_dur=${silenceS}`,
    '-ac',
    '1',
    '-ar',
    String(SAMPLE_RATE),
    '-y',
    wav,
  ]);
  const raw = execFileSync('ffmpeg', [...quiet, '-i', wav, '-f', 'f32le', 'pipe:1'], {
    maxBuffer: 64 * 2 ** 20,
  });
  const samples = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  // The end of speech: the last 50 ms frame above the capture policy's normal sensitivity.
  let last = 0;
  for (let i = 0; i + FRAME <= samples.length; i += FRAME)
    if (rms(samples.subarray(i, i + FRAME)) >= SENSITIVITY.normal) last = i + FRAME;
  return { wav, samples, speechEnd: last / SAMPLE_RATE, period: samples.length / SAMPLE_RATE };
}
