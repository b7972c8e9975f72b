// The non-speech half of `pnpm bench quality`: generated inputs with no speech in them (silence,
// white and pink noise, mains hum, a tone, applause-like bursts) and the words each path says on
// them (target 0: every word is a hallucination), plus what the Silero VAD costs per second of
// audio. Deterministic: the same samples on every run.
import { WhisperVad } from '@live-captions/whisper';

const RATE = 16_000;
export const NON_SPEECH_SECONDS = 6;

function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0xffffffff;
  };
}

const fill = (seconds: number, sample: (i: number) => number) =>
  Float32Array.from({ length: Math.round(seconds * RATE) }, (_, i) => sample(i));

function white(seconds: number, amplitude: number, seed: number): Float32Array {
  const next = xorshift(seed);
  return fill(seconds, () => (next() * 2 - 1) * amplitude);
}

/** Pink noise (Paul Kellett's economy filter over white noise). */
function pink(seconds: number, amplitude: number, seed: number): Float32Array {
  const next = xorshift(seed);
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  return fill(seconds, () => {
    const w = next() * 2 - 1;
    b0 = 0.99765 * b0 + w * 0.099046;
    b1 = 0.963 * b1 + w * 0.2965164;
    b2 = 0.57 * b2 + w * 1.0526913;
    return ((b0 + b1 + b2 + w * 0.1848) / 4) * amplitude;
  });
}

const sine = (seconds: number, frequency: number, amplitude: number) =>
  fill(seconds, (i) => Math.sin((2 * Math.PI * frequency * i) / RATE) * amplitude);

/** Applause-like: bursts of 5-30 ms of noise at random onsets, decaying, about 40 claps a second. */
function applause(seconds: number, amplitude: number, seed: number): Float32Array {
  const next = xorshift(seed);
  const out = new Float32Array(Math.round(seconds * RATE));
  for (let clap = 0; clap < seconds * 40; clap++) {
    const at = Math.floor(next() * out.length);
    const length = Math.round((0.005 + next() * 0.025) * RATE);
    const gain = amplitude * (0.3 + 0.7 * next());
    for (let i = 0; i < length && at + i < out.length; i++) {
      out[at + i] = (out[at + i] ?? 0) + (next() * 2 - 1) * gain * Math.exp(-i / (length / 4));
    }
  }
  return out.map((x) => Math.max(-1, Math.min(1, x)));
}

/** The generated non-speech inputs, NON_SPEECH_SECONDS each. */
export function nonSpeechInputs(): Array<[string, Float32Array]> {
  const s = NON_SPEECH_SECONDS;
  return [
    ['digital silence', new Float32Array(s * RATE)],
    ['room tone (white noise, -50 dBFS)', white(s, 0.003, 7)],
    ['white noise (-10 dBFS)', white(s, 0.3, 11)],
    ['pink noise', pink(s, 0.5, 13)],
    ['50 Hz mains hum', sine(s, 50, 0.3)],
    ['1 kHz tone', sine(s, 1000, 0.3)],
    ['applause-like bursts', applause(s, 0.5, 17)],
  ];
}

export const words = (text: string | undefined) =>
  text === undefined ? '-' : text.split(/\s+/).filter(Boolean).length;

/** Silero's wall time per second of audio on `audio` (best of `runs`, one thread). */
export async function vadMsPerSecond(vadPath: string, audio: Float32Array, runs = 5): Promise<number> {
  const vad = await WhisperVad.load(vadPath, { threads: 1 });
  try {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < runs; i++) best = Math.min(best, (await vad.detect(audio)).wallMs);
    return best / (audio.length / RATE);
  } finally {
    vad.free();
  }
}
