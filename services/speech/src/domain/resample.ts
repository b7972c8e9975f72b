/**
 * Band-limited sample-rate conversion (windowed sinc, Kaiser window), as in J. O. Smith's
 * "Digital Audio Resampling": every output sample is the input convolved with a low-pass sinc
 * whose cutoff lies below the lower of the two Nyquist frequencies, so downsampling does not
 * alias. Rates with a small rational ratio (all the common ones: 8, 11.025, 22.05, 24, 32,
 * 44.1, 48 kHz to 16 kHz) use a precomputed polyphase bank; any other rate evaluates the
 * filter from a finely sampled table with linear interpolation.
 */

// Hot loops bind Math's functions locally: global lookups are slow inside vm contexts (jest).
const { abs, ceil, floor, max, min, sin, sqrt, round, PI } = Math;

/** Zero crossings of the sinc on each side of the centre tap (at the filter's cutoff rate). */
const ZERO_CROSSINGS = 24;
/** Kaiser window shape: about 90 dB stop-band attenuation. */
const BETA = 9;
/** Passband edge as a fraction of the lower Nyquist frequency (the rest is transition band). */
export const ROLLOFF = 0.9;
/** Interpolated-table resolution (points per zero crossing) for rates without a small ratio. */
const RESOLUTION = 512;
/** Largest polyphase bank (phases) worth precomputing. */
const MAX_PHASES = 1024;

/** Zeroth-order modified Bessel function of the first kind (power series). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const half = x / 2;
  for (let k = 1; k < 64; k += 1) {
    term *= (half / k) ** 2;
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

const I0_BETA = besselI0(BETA);

/** Kaiser-windowed sinc at `x` zero crossings from the centre (0 beyond ZERO_CROSSINGS). */
function kaiserSinc(x: number): number {
  const ax = abs(x);
  if (ax >= ZERO_CROSSINGS) return 0;
  const sinc = ax < 1e-12 ? 1 : sin(PI * ax) / (PI * ax);
  const ratio = ax / ZERO_CROSSINGS;
  return (sinc * besselI0(BETA * sqrt(1 - ratio * ratio))) / I0_BETA;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

interface Bank {
  /** Output n reads input from floor(n * down / up) - half + 1, with phase (n * down) % up. */
  up: number;
  down: number;
  half: number;
  taps: number;
  /** `up` phases of `taps` coefficients, each phase normalized to unit DC gain. */
  coefficients: Float64Array;
}

const banks = new Map<string, Bank>();

function polyphaseBank(fromRate: number, toRate: number): Bank | undefined {
  const key = `${fromRate}:${toRate}`;
  const cached = banks.get(key);
  if (cached) return cached;
  const divisor = gcd(fromRate, toRate);
  const up = toRate / divisor;
  const down = fromRate / divisor;
  if (!Number.isInteger(up) || !Number.isInteger(down) || up > MAX_PHASES) return undefined;
  const scale = min(1, toRate / fromRate) * ROLLOFF;
  const half = ceil(ZERO_CROSSINGS / scale);
  const taps = 2 * half;
  const coefficients = new Float64Array(up * taps);
  for (let phase = 0; phase < up; phase += 1) {
    const fraction = phase / up;
    let sum = 0;
    for (let j = 0; j < taps; j += 1) {
      // Tap j reads input base - half + 1 + j, at distance (half - 1 - j) + fraction from t.
      const value = kaiserSinc((half - 1 - j + fraction) * scale);
      coefficients[phase * taps + j] = value;
      sum += value;
    }
    for (let j = 0; j < taps; j += 1) coefficients[phase * taps + j] = coefficients[phase * taps + j]! / sum;
  }
  const bank = { up, down, half, taps, coefficients };
  banks.set(key, bank);
  return bank;
}

function resamplePolyphase(input: Float32Array, bank: Bank, outLength: number): Float32Array {
  const { up, down, half, taps, coefficients } = bank;
  const output = new Float32Array(outLength);
  const last = input.length - 1;
  for (let n = 0; n < outLength; n += 1) {
    const position = n * down;
    const base = floor(position / up);
    const offset = (position - base * up) * taps;
    const start = base - half + 1;
    let acc = 0;
    if (start >= 0 && start + taps - 1 <= last) {
      for (let j = 0; j < taps; j += 1) acc += input[start + j]! * coefficients[offset + j]!;
    } else {
      // Near the edges, samples outside the input count as zero.
      for (let j = 0; j < taps; j += 1) {
        const k = start + j;
        if (k >= 0 && k <= last) acc += input[k]! * coefficients[offset + j]!;
      }
    }
    output[n] = acc;
  }
  return output;
}

let table: Float64Array | undefined;

function resampleInterpolated(
  input: Float32Array,
  fromRate: number,
  toRate: number,
  outLength: number,
): Float32Array {
  if (!table) {
    table = new Float64Array(ZERO_CROSSINGS * RESOLUTION + 2);
    for (let i = 0; i < table.length; i += 1) table[i] = kaiserSinc(i / RESOLUTION);
  }
  const h = table;
  const output = new Float32Array(outLength);
  const step = fromRate / toRate;
  const scale = min(1, toRate / fromRate) * ROLLOFF;
  const reach = ZERO_CROSSINGS / scale;
  const tableStep = scale * RESOLUTION;
  const last = input.length - 1;
  for (let n = 0; n < outLength; n += 1) {
    const t = n * step;
    const first = max(0, ceil(t - reach));
    const end = min(last, floor(t + reach));
    let acc = 0;
    for (let k = first; k <= end; k += 1) {
      const position = abs(t - k) * tableStep;
      const index = floor(position);
      const lower = h[index] ?? 0;
      acc += input[k]! * (lower + ((h[index + 1] ?? 0) - lower) * (position - index));
    }
    output[n] = acc * scale;
  }
  return output;
}

/**
 * Converts `input` sampled at `fromRate` to `toRate`. Output length is
 * `round(input.length * toRate / fromRate)`; samples outside the input count as zero.
 */
export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (!(fromRate > 0 && toRate > 0)) throw new RangeError('Sample rates must be positive');
  if (fromRate === toRate) return input.slice();
  const outLength = round((input.length * toRate) / fromRate);
  const bank = polyphaseBank(fromRate, toRate);
  return bank
    ? resamplePolyphase(input, bank, outLength)
    : resampleInterpolated(input, fromRate, toRate, outLength);
}
