/**
 * The capture page's rolling window (pure: no DOM, no timers). Audio frames go in; `next()` says
 * which window to send and `commit()` applies the gateway's answer:
 *
 * - before speech only the last `preSpeechSeconds` are kept (and any context is dropped);
 * - a window is due when the new audio reaches the interval, at a pause (>= `pauseSeconds` quiet
 *   after >= `minSpeechSeconds` of speech), or on stop; at most `maxRequestSeconds` per request;
 * - `final` only when the whole buffer is sent at a pause or on stop;
 * - after an answer, `contextSeconds` before `committed_seconds` stay as the next window's context.
 *
 * Nothing else is ever dropped: audio that could not be sent stays buffered until `clear()`, or
 * until `dropOverflow()` drops the oldest beyond `maxBufferedSeconds` (a long gateway outage).
 */
import {
  MAX_CLIP_SECONDS,
  MIN_CLIP_SAMPLES,
  MIN_UNFINISHED_SECONDS,
  SAMPLE_RATE,
} from '@live-captions/audio';

export interface RollingBufferOptions {
  /** RMS below which a frame counts as quiet (sensitivity). */
  threshold: number;
  /** New audio that triggers an unfinished window, in seconds (3, 6 or 9 on the page). */
  intervalSeconds: number;
  sampleRate?: number;
  contextSeconds?: number;
  preSpeechSeconds?: number;
  pauseSeconds?: number;
  minSpeechSeconds?: number;
  maxRequestSeconds?: number;
  /** Buffered audio beyond which capture must stop and drain. */
  maxBufferedSeconds?: number;
}

/** Sensitivity presets: RMS thresholds of the capture page. */
export const SENSITIVITY = { quiet: 0.0008, normal: 0.002, noisy: 0.006 } as const;
export type Sensitivity = keyof typeof SENSITIVITY;

/** A window to send: `[context | new audio]`, 16 kHz mono float32. */
export interface AudioWindow {
  samples: Float32Array;
  contextSeconds: number;
  final: boolean;
  /** Why it was sent (for the status line and tests). */
  reason: 'interval' | 'pause' | 'stop' | 'limit';
}

interface Frame {
  /** End offset in the buffer. */
  end: number;
  length: number;
  voiced: boolean;
}

export function rms(frame: Float32Array): number {
  if (frame.length === 0) return 0;
  let sum = 0;
  for (const x of frame) sum += x * x;
  return Math.sqrt(sum / frame.length);
}

export class RollingBuffer {
  readonly sampleRate: number;
  private readonly options: Required<RollingBufferOptions>;
  private data = new Float32Array(SAMPLE_RATE * 4);
  private length = 0;
  /** Samples at the start that are committed context. */
  private context = 0;
  private frames: Frame[] = [];
  /** The window in flight: its length and whether it was final. */
  private inFlight?: { length: number; context: number; final: boolean };

  constructor(options: RollingBufferOptions) {
    this.options = {
      sampleRate: SAMPLE_RATE,
      contextSeconds: 0.5,
      preSpeechSeconds: 0.5,
      pauseSeconds: 0.6,
      minSpeechSeconds: 0.35,
      maxRequestSeconds: MAX_CLIP_SECONDS,
      maxBufferedSeconds: 30,
      ...options,
    };
    this.sampleRate = this.options.sampleRate;
  }

  /** Changes sensitivity or interval while capturing. */
  configure(update: Partial<Pick<RollingBufferOptions, 'threshold' | 'intervalSeconds'>>): void {
    Object.assign(this.options, update);
  }

  /** Buffered audio (context included), in seconds. */
  get bufferedSeconds(): number {
    return this.length / this.sampleRate;
  }

  /** New (not yet committed) audio, in seconds. */
  get pendingSeconds(): number {
    return (this.length - this.context) / this.sampleRate;
  }

  /** Whether a window is waiting for its answer. */
  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  /** More audio buffered than allowed: the page must stop capturing and drain. */
  get overflowing(): boolean {
    return this.bufferedSeconds > this.options.maxBufferedSeconds;
  }

  /** Whether any speech is waiting to be sent. */
  get hasSpeech(): boolean {
    return this.voicedNew() > 0;
  }

  /** `frameRms`: the frame's RMS when the caller already has it (the page's level meter does). */
  push(frame: Float32Array, frameRms = rms(frame)): void {
    if (frame.length === 0) return;
    this.ensureCapacity(this.length + frame.length);
    this.data.set(frame, this.length);
    this.length += frame.length;
    this.frames.push({
      end: this.length,
      length: frame.length,
      voiced: frameRms >= this.options.threshold,
    });
    // Before speech, keep only a short lead-in; what precedes it is not contiguous context any more.
    if (!this.inFlight && this.voicedNew() === 0) {
      const keep = Math.round(this.options.preSpeechSeconds * this.sampleRate);
      if (this.length > keep) {
        this.drop(this.length - keep);
        this.context = 0;
      }
    }
  }

  /**
   * The window due now, or undefined. `stopping`: send whatever speech is left (final when it all
   * fits). Call `commit()` with the answer before the next window.
   */
  next(stopping = false): AudioWindow | undefined {
    if (this.inFlight) return undefined;
    const rate = this.sampleRate;
    const fresh = this.length - this.context;
    const voiced = this.voicedNew();
    if (fresh <= 0 || voiced === 0) return undefined;
    const max = Math.round(this.options.maxRequestSeconds * rate);
    if (this.length > max) return this.take(max, false, 'limit');
    if (stopping) return this.take(this.length, true, 'stop');
    const quiet = this.trailingQuiet();
    if (quiet >= this.options.pauseSeconds * rate && voiced >= this.options.minSpeechSeconds * rate) {
      return this.take(this.length, true, 'pause');
    }
    const interval = Math.max(this.options.intervalSeconds, MIN_UNFINISHED_SECONDS) * rate;
    if (fresh >= interval) return this.take(this.length, false, 'interval');
    return undefined;
  }

  /**
   * Applies an answer to the window in flight: keeps `contextSeconds` of committed audio before
   * `committedSeconds` as context and the uncommitted rest (plus what arrived meanwhile) as new.
   */
  commit(committedSeconds: number): void {
    const sent = this.inFlight;
    if (!sent) throw new Error('No window in flight');
    this.inFlight = undefined;
    const reported = Math.round(committedSeconds * this.sampleRate);
    const committed = sent.final
      ? sent.length
      : Math.min(sent.length, Math.max(sent.context, Number.isFinite(reported) ? reported : sent.context));
    const keep = Math.min(committed, Math.round(this.options.contextSeconds * this.sampleRate));
    this.drop(committed - keep);
    this.context = keep;
  }

  /**
   * The lag watchdog: forgets new audio older than the last `keepSeconds` (never while a window is
   * in flight) and says how many seconds it dropped. What is kept starts a fresh window, without
   * context: it no longer follows the committed audio.
   */
  skipToLiveEdge(keepSeconds: number): number {
    if (this.inFlight) return 0;
    const excess = this.length - Math.round(keepSeconds * this.sampleRate);
    if (excess <= 0) return 0;
    const skipped = Math.max(0, excess - this.context) / this.sampleRate;
    this.drop(excess);
    this.context = 0;
    return skipped;
  }

  /**
   * Drops the oldest audio beyond `maxBufferedSeconds` (the gateway has been away too long): the
   * window in flight is abandoned and no context is kept across the hole. Returns the seconds
   * dropped (0 when within the bound).
   */
  dropOverflow(): number {
    const excess = this.length - Math.round(this.options.maxBufferedSeconds * this.sampleRate);
    if (excess <= 0) return 0;
    this.inFlight = undefined;
    this.drop(excess);
    this.context = 0;
    return excess / this.sampleRate;
  }

  /** Forgets everything (the operator chose Discard). */
  clear(): void {
    this.length = 0;
    this.context = 0;
    this.frames = [];
    this.inFlight = undefined;
  }

  private take(length: number, final: boolean, reason: AudioWindow['reason']): AudioWindow | undefined {
    if (!final && length - this.context < MIN_UNFINISHED_SECONDS * this.sampleRate) return undefined;
    let samples = this.data.slice(0, length);
    if (samples.length < MIN_CLIP_SAMPLES) {
      const padded = new Float32Array(MIN_CLIP_SAMPLES);
      padded.set(samples);
      samples = padded;
    }
    this.inFlight = { length, context: this.context, final };
    return { samples, contextSeconds: this.context / this.sampleRate, final, reason };
  }

  private voicedNew(): number {
    let voiced = 0;
    for (const frame of this.frames) {
      if (frame.voiced && frame.end > this.context)
        voiced += Math.min(frame.length, frame.end - this.context);
    }
    return voiced;
  }

  private trailingQuiet(): number {
    let quiet = 0;
    for (let i = this.frames.length - 1; i >= 0 && !this.frames[i]!.voiced; i--)
      quiet += this.frames[i]!.length;
    return quiet;
  }

  private drop(count: number): void {
    if (count <= 0) return;
    this.data.copyWithin(0, count, this.length);
    this.length -= count;
    this.frames = this.frames
      .map((frame) => ({ ...frame, end: frame.end - count }))
      .filter((frame) => frame.end > 0)
      .map((frame) => ({ ...frame, length: Math.min(frame.length, frame.end) }));
  }

  private ensureCapacity(needed: number): void {
    if (needed <= this.data.length) return;
    const grown = new Float32Array(Math.max(needed, this.data.length * 2));
    grown.set(this.data.subarray(0, this.length));
    this.data = grown;
  }
}
