/**
 * Streaming band-limited sample-rate conversion (windowed sinc, Kaiser window), as in J. O.
 * Smith's "Digital Audio Resampling": every output sample is the input convolved with a low-pass
 * sinc whose cut-off lies below the lower of the two Nyquist frequencies, so downsampling does not
 * fold high frequencies into the speech band. Output n stands at input instant n * from / to.
 *
 * Rates with a small rational ratio (all the common ones: 8, 11.025, 22.05, 24, 32, 44.1, 48 kHz
 * to 16 or 24 kHz) use a precomputed polyphase bank; other ratios compute each output's
 * coefficients from a finely sampled kernel table. The figures that chose this filter over the
 * capture page's former one (Blackman, 16 zero crossings) are in the package README.
 */

// Hot loops bind Math's functions locally: global lookups are slow inside vm contexts (jest).
const { abs, ceil, floor, min, sin, sqrt, round, PI } = Math;

/** Zero crossings of the sinc on each side of the centre tap (at the filter's cut-off rate). */
const ZERO_CROSSINGS = 24;
/** Kaiser window shape: about 90 dB stop-band attenuation. */
const BETA = 9;
/** Pass-band edge as a fraction of the lower Nyquist frequency (the rest is transition band). */
export const ROLLOFF = 0.9;
/** Kernel table points per zero crossing, for ratios without a polyphase bank. */
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

let kernelTable: Float64Array | undefined;

/** The kernel by linear interpolation in a table (built on first use). */
function tabulatedKernel(x: number): number {
  if (!kernelTable) {
    kernelTable = new Float64Array(ZERO_CROSSINGS * RESOLUTION + 2);
    for (let i = 0; i < kernelTable.length; i += 1) kernelTable[i] = kaiserSinc(i / RESOLUTION);
  }
  const position = abs(x) * RESOLUTION;
  const index = floor(position);
  const lower = kernelTable[index] ?? 0;
  return lower + ((kernelTable[index + 1] ?? 0) - lower) * (position - index);
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * Fills `into` with the taps of one phase (`fraction` of an input sample past the centre),
 * normalized to unit DC gain so that a constant signal stays exactly constant.
 */
function fillPhase(
  into: Float64Array,
  fraction: number,
  half: number,
  scale: number,
  kernel: (x: number) => number,
): void {
  let sum = 0;
  for (let j = 0; j < into.length; j += 1) {
    // Tap j reads input base - half + 1 + j, at distance (half - 1 - j) + fraction from the instant.
    const value = kernel((half - 1 - j + fraction) * scale);
    into[j] = value;
    sum += value;
  }
  for (let j = 0; j < into.length; j += 1) into[j] = into[j]! / sum;
}

/** Polyphase banks by ratio: `up` phases of `taps` coefficients each. */
const banks = new Map<string, Float64Array>();

function polyphaseBank(up: number, half: number, scale: number): Float64Array {
  const key = `${up}:${half}:${scale}`;
  const cached = banks.get(key);
  if (cached) return cached;
  const taps = 2 * half;
  const bank = new Float64Array(up * taps);
  for (let phase = 0; phase < up; phase += 1) {
    fillPhase(bank.subarray(phase * taps, (phase + 1) * taps), phase / up, half, scale, kaiserSinc);
  }
  banks.set(key, bank);
  return bank;
}

/**
 * Converts a stream from `fromRate` to `toRate` (integer rates). Frames may have any length; the
 * output does not depend on the framing, and lags the input by the filter's half width (about
 * 1 ms) until {@link flush}.
 */
export class StreamResampler {
  /** Output n stands at input instant n * down / up. */
  private readonly up: number;
  private readonly down: number;
  /** Input samples each output reads on each side of its instant. */
  private readonly half: number;
  private readonly taps: number;
  private readonly scale: number;
  private readonly bank: Float64Array | undefined;
  /** Coefficients of one output, for ratios without a bank. */
  private readonly scratch: Float64Array;
  /** Input still reachable by the next outputs; `history[0]` is input sample `historyStart`. */
  private history = new Float32Array(0);
  private historyStart = 0;
  /** Input samples received and output samples produced so far. */
  private received = 0;
  private produced = 0;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    if (!(Number.isInteger(fromRate) && fromRate > 0 && Number.isInteger(toRate) && toRate > 0)) {
      throw new RangeError('Sample rates must be positive integers');
    }
    const divisor = gcd(fromRate, toRate);
    this.up = toRate / divisor;
    this.down = fromRate / divisor;
    this.scale = min(1, toRate / fromRate) * ROLLOFF;
    this.half = ceil(ZERO_CROSSINGS / this.scale);
    this.taps = 2 * this.half;
    this.bank = this.up <= MAX_PHASES ? polyphaseBank(this.up, this.half, this.scale) : undefined;
    this.scratch = new Float64Array(this.taps);
  }

  /** Whether the rates are equal (frames pass through unchanged). */
  get passthrough(): boolean {
    return this.fromRate === this.toRate;
  }

  /** Converts the next frame; returns the output samples it completes (possibly none). */
  process(frame: Float32Array): Float32Array {
    if (this.passthrough) return frame.slice();
    this.append(frame);
    // Output n is complete when input floor(n * down / up) + half has arrived.
    return this.emit(ceil(((this.received - this.half) * this.up) / this.down), this.received);
  }

  /**
   * Every output whose instant lies within the input so far, computed as if the input stopped
   * here (silence after it). The stream goes on after it in step: only the outputs of the last
   * half width were filtered without the input that follows them.
   */
  flush(): Float32Array {
    if (this.passthrough) return new Float32Array(0);
    return this.emit(ceil((this.received * this.up) / this.down), this.received);
  }

  private append(frame: Float32Array): void {
    const merged = new Float32Array(this.history.length + frame.length);
    merged.set(this.history);
    merged.set(frame, this.history.length);
    this.history = merged;
    this.received += frame.length;
  }

  /** Outputs up to number `until` (exclusive); input at or beyond `end` counts as silence. */
  private emit(until: number, end: number): Float32Array {
    const count = Math.max(0, until - this.produced);
    const out = new Float32Array(count);
    const { up, down, half, taps, history, historyStart } = this;
    const available = Math.min(history.length, end - historyStart);
    for (let i = 0; i < count; i += 1) {
      const position = (this.produced + i) * down;
      const base = floor(position / up);
      const phase = position - base * up;
      let coefficients: Float64Array;
      let offset = 0;
      if (this.bank) {
        coefficients = this.bank;
        offset = phase * taps;
      } else {
        fillPhase(this.scratch, phase / up, half, this.scale, tabulatedKernel);
        coefficients = this.scratch;
      }
      const first = base - half + 1 - historyStart;
      let acc = 0;
      if (first >= 0 && first + taps <= available) {
        for (let j = 0; j < taps; j += 1) acc += history[first + j]! * coefficients[offset + j]!;
      } else {
        // At the edges, samples outside the input count as zero.
        for (let j = 0; j < taps; j += 1) {
          const k = first + j;
          if (k >= 0 && k < available) acc += history[k]! * coefficients[offset + j]!;
        }
      }
      out[i] = acc;
    }
    this.produced += count;
    // Keep only what the next outputs can still reach.
    const next = floor((this.produced * down) / up) - half + 1;
    const keepFrom = Math.max(historyStart, Math.min(next, historyStart + history.length));
    if (keepFrom > historyStart) {
      this.history = history.slice(keepFrom - historyStart);
      this.historyStart = keepFrom;
    }
    return out;
  }
}

/** Frames one after the other, as one array (a stream's output, for instance). */
export function concatSamples(parts: readonly Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Converts a whole clip from `fromRate` to `toRate`: `round(input.length * toRate / fromRate)`
 * samples, as the stream would give them; samples outside the input count as zero.
 */
export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  const stream = new StreamResampler(fromRate, toRate);
  if (stream.passthrough) return input.slice();
  const head = stream.process(input);
  const tail = stream.flush();
  const out = new Float32Array(round((input.length * toRate) / fromRate));
  out.set(head.subarray(0, out.length));
  if (head.length < out.length) out.set(tail.subarray(0, out.length - head.length), head.length);
  return out;
}
