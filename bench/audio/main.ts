/**
 * `pnpm bench audio`: the shared streaming resampler (`@live-captions/audio`), its aliasing and
 * its cost, for the conversions the stack makes: microphones (44.1 / 48 kHz) to the realtime
 * protocol's 24 kHz and to the engine's 16 kHz, and realtime appends (24 kHz, G.711 8 kHz) to
 * 16 kHz. Figures only; the package README keeps the comparison that chose this filter.
 */
import { concatSamples, StreamResampler } from '@live-captions/audio';
import { table } from '../lib/stats.js';

/** 20 ms frames at the input rate, as the capture worklet and realtime appends deliver them. */
const FRAME_SECONDS = 0.02;

function convert(input: Float32Array, from: number, to: number): Float32Array {
  const stream = new StreamResampler(from, to);
  const frame = Math.round(from * FRAME_SECONDS);
  const parts: Float32Array[] = [];
  for (let at = 0; at < input.length; at += frame) parts.push(stream.process(input.subarray(at, at + frame)));
  parts.push(stream.flush());
  return concatSamples(parts);
}

const tone = (rate: number, hz: number, seconds: number) =>
  Float32Array.from(
    { length: Math.round(rate * seconds) },
    (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / rate),
  );

/** Level of the middle half of `signal` relative to the input tone, in dB. */
function gainDb(signal: Float32Array): number {
  const from = Math.floor(signal.length / 4);
  const to = Math.floor((signal.length * 3) / 4);
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += signal[i]! ** 2;
  return 20 * Math.log10(Math.sqrt(sum / (to - from)) / (0.5 / Math.SQRT2));
}

const rows: string[][] = [];
for (const [from, to] of [
  [48_000, 24_000],
  [44_100, 24_000],
  [48_000, 16_000],
  [44_100, 16_000],
  [24_000, 16_000],
  [8_000, 16_000],
] as const) {
  const nyquist = Math.min(from, to) / 2;
  // Worst alias: tones from just above the output's Nyquist frequency to the input's.
  let worstStop = Number.NEGATIVE_INFINITY;
  if (from > to) {
    for (let hz = nyquist * 1.05; hz < from / 2; hz += (from / 2 - nyquist) / 40) {
      worstStop = Math.max(worstStop, gainDb(convert(tone(from, hz, 0.25), from, to)));
    }
  }
  let ripple = 0;
  for (let hz = 100; hz <= nyquist * 0.8; hz += (nyquist * 0.8) / 40) {
    ripple = Math.max(ripple, Math.abs(gainDb(convert(tone(from, hz, 0.25), from, to))));
  }
  const speech = tone(from, 440, 10);
  convert(speech, from, to);
  const started = performance.now();
  const runs = 3;
  for (let k = 0; k < runs; k += 1) convert(speech, from, to);
  const msPerSecond = (performance.now() - started) / runs / 10;
  rows.push([
    `${from / 1000} -> ${to / 1000} kHz`,
    from > to ? `${worstStop.toFixed(1)} dB` : 'n/a (upsampling)',
    `${ripple.toFixed(3)} dB`,
    `${msPerSecond.toFixed(2)} ms`,
    `${(1000 / msPerSecond).toFixed(0)}x`,
  ]);
}
console.log(
  table(
    [
      'conversion',
      'worst alias (above Nyquist)',
      'pass-band ripple (to 0.8 Nyquist)',
      'cost per s of audio',
      'real time',
    ],
    rows,
  ),
);
