/**
 * Streaming sample-rate conversion (pure): the capture worklet delivers frames at whatever rate
 * the AudioContext runs, the realtime protocol wants 24 kHz. A windowed-sinc interpolator with
 * its cut-off at the lower of the two Nyquist frequencies, so that downsampling (48 kHz
 * microphones) does not fold high frequencies into the speech band. Frames may have any length;
 * the output is the same whatever the framing, and lags the input by `halfWidth` input samples
 * (about 0.3 ms) until `flush()`.
 */

/** Zero crossings of the sinc on each side at the narrower of the two rates. */
const ZERO_CROSSINGS = 16;
/** Kernel table entries per input sample (linear interpolation in between). */
const TABLE_STEPS = 512;

export class StreamResampler {
  /** Input samples per output sample. */
  private readonly step: number;
  /** Cut-off relative to the input's Nyquist frequency (1 when upsampling). */
  private readonly cutoff: number;
  /** Input samples used on each side of an output instant. */
  private readonly halfWidth: number;
  /** The kernel at 0, 1/TABLE_STEPS, ... halfWidth input samples (it is symmetric). */
  private readonly table: Float32Array;
  /** Input not yet consumed; `history[0]` is input sample number `historyStart`. */
  private history = new Float32Array(0);
  private historyStart = 0;
  /** Input samples received so far. */
  private received = 0;
  /** Output samples produced so far. */
  private produced = 0;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    if (!(fromRate > 0 && toRate > 0)) throw new RangeError('sample rates must be positive');
    this.step = fromRate / toRate;
    this.cutoff = Math.min(1, toRate / fromRate);
    this.halfWidth = Math.ceil(ZERO_CROSSINGS / this.cutoff);
    // Evaluating sines per tap is too slow for real time on a laptop: the kernel is tabulated once.
    this.table = Float32Array.from({ length: this.halfWidth * TABLE_STEPS + 2 }, (_, i) =>
      this.kernel(i / TABLE_STEPS),
    );
  }

  /** Whether the rates are equal (frames pass through unchanged). */
  get passthrough(): boolean {
    return this.fromRate === this.toRate;
  }

  /** Converts the next frame; returns the output samples it completes (possibly none). */
  process(frame: Float32Array): Float32Array {
    if (this.passthrough) return frame.slice();
    this.append(frame);
    return this.emit(Number.POSITIVE_INFINITY);
  }

  /** The output still held back by the filter's look-ahead (call once, at the end). */
  flush(): Float32Array {
    if (this.passthrough) return new Float32Array(0);
    const total = this.received;
    // Silence after the end lets the last outputs be computed; no output beyond the input's end.
    this.append(new Float32Array(this.halfWidth));
    const out = this.emit(total);
    this.received = total;
    return out;
  }

  private append(frame: Float32Array): void {
    const merged = new Float32Array(this.history.length + frame.length);
    merged.set(this.history);
    merged.set(frame, this.history.length);
    this.history = merged;
    this.received += frame.length;
  }

  /** Every output whose inputs have all arrived, up to the instant `end` (in input samples). */
  private emit(end: number): Float32Array {
    const out: number[] = [];
    for (;;) {
      const at = this.produced * this.step;
      if (at >= end || Math.floor(at) + this.halfWidth >= this.received) break;
      out.push(this.sampleAt(at));
      this.produced += 1;
    }
    // Keep only what the next outputs can still reach.
    const keepFrom = Math.max(this.historyStart, Math.floor(this.produced * this.step) - this.halfWidth);
    this.history = this.history.slice(keepFrom - this.historyStart);
    this.historyStart = keepFrom;
    return Float32Array.from(out);
  }

  private sampleAt(at: number): number {
    const centre = Math.floor(at);
    let sum = 0;
    let weights = 0;
    for (let k = centre - this.halfWidth + 1; k <= centre + this.halfWidth; k++) {
      const index = k - this.historyStart;
      const position = Math.abs(at - k) * TABLE_STEPS;
      const below = Math.floor(position);
      const weight = this.table[below]! + (this.table[below + 1]! - this.table[below]!) * (position - below);
      weights += weight;
      if (index >= 0 && index < this.history.length) sum += this.history[index]! * weight;
    }
    // Normalizing by the weights keeps a constant signal exactly constant.
    return weights === 0 ? 0 : sum / weights;
  }

  /** Blackman-windowed sinc at `distance` input samples, cut off at `cutoff`. */
  private kernel(distance: number): number {
    const x = distance / this.halfWidth;
    if (Math.abs(x) >= 1) return 0;
    const window = 0.42 + 0.5 * Math.cos(Math.PI * x) + 0.08 * Math.cos(2 * Math.PI * x);
    const arg = Math.PI * this.cutoff * distance;
    return (arg === 0 ? 1 : Math.sin(arg) / arg) * window;
  }
}
