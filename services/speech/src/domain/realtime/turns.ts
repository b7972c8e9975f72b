/**
 * Server VAD turns from Silero's speech probability per 32 ms frame: an utterance starts on the
 * first frame at or above the threshold (its audio reaching back `prefixPaddingMs`) and stops
 * once a pause (from a frame below `threshold - 0.15` until a frame back at the threshold) has
 * lasted `silenceDurationMs`. An
 * utterance that reaches the decode limit is cut at its best pause: the least speech-like frame
 * of its last seconds, and goes on as a new utterance from there.
 * Positions are 16 kHz sample indices counted from the start of the session's audio.
 */
import { SAMPLE_RATE } from '@live-captions/audio';
import type { TurnDetection } from './settings.js';

export const FRAME_SAMPLES = 512;
/** Silero's usual hysteresis: speech ends below `threshold - 0.15`. */
const RELEASE_GAP = 0.15;
/** Where a cut may fall: within the last seconds, never in the first second of the utterance. */
const CUT_SEARCH_SECONDS = 3;

export type TurnEvent =
  | { kind: 'start'; at: number }
  | { kind: 'stop'; start: number; end: number; cut: boolean };

export class TurnDetector {
  /** First sample of the open utterance (padding included); undefined while idle. */
  private start: number | undefined;
  /** Where the current pause of the open utterance began, if it is in one. */
  private pauseFrom: number | undefined;
  /** Probabilities of the open utterance's frames, from `framesFrom`. */
  private probabilities: number[] = [];
  private framesFrom = 0;
  private readonly release: number;

  constructor(
    private readonly settings: TurnDetection,
    /** Longest utterance (the decode limit), in samples. */
    private readonly maxSamples: number,
    /** Where audio began to be kept: the padding never reaches before it. */
    private floor = 0,
  ) {
    this.release = Math.max(0.01, settings.threshold - RELEASE_GAP);
  }

  get speaking(): boolean {
    return this.start !== undefined;
  }

  /** Start of the open utterance, if any. */
  get utteranceStart(): number | undefined {
    return this.start;
  }

  /**
   * Forgets the open utterance (commit or clear by the client); audio before `floor` is gone, and
   * frames of it that the VAD scores afterwards change nothing.
   */
  reset(floor: number): void {
    this.start = undefined;
    this.probabilities = [];
    this.floor = floor;
  }

  /** The frame [frameStart, frameStart + FRAME_SAMPLES) had `probability`. */
  push(frameStart: number, probability: number): TurnEvent[] {
    const frameEnd = frameStart + FRAME_SAMPLES;
    // Audio already committed or cleared: it must not open a turn nothing will ever close.
    if (frameEnd <= this.floor) return [];
    if (this.start === undefined) {
      if (probability < this.settings.threshold) return [];
      const padding = Math.round((this.settings.prefixPaddingMs * SAMPLE_RATE) / 1000);
      this.open(Math.max(this.floor, frameStart - padding), frameStart);
      this.probabilities.push(probability);
      return [{ kind: 'start', at: this.start! }];
    }
    this.probabilities.push(probability);
    // Silero's rule: a frame below the release level starts the pause, only a frame at the
    // threshold ends it; frames in between change nothing.
    if (probability >= this.settings.threshold) this.pauseFrom = undefined;
    else if (probability < this.release && this.pauseFrom === undefined) this.pauseFrom = frameStart;
    if (
      this.pauseFrom !== undefined &&
      (frameEnd - this.pauseFrom) * 1000 >= this.settings.silenceDurationMs * SAMPLE_RATE
    ) {
      const stop: TurnEvent = { kind: 'stop', start: this.start, end: this.pauseFrom, cut: false };
      this.reset(this.pauseFrom);
      return [stop];
    }
    if (frameEnd - this.start + FRAME_SAMPLES > this.maxSamples) {
      const at = this.bestPause(frameEnd);
      const stop: TurnEvent = { kind: 'stop', start: this.start, end: at, cut: true };
      const restProbabilities = this.probabilities.slice((at - this.framesFrom) / FRAME_SAMPLES);
      this.open(at, at);
      this.probabilities = restProbabilities;
      return [stop, { kind: 'start', at }];
    }
    return [];
  }

  /** `firstFrame`: start of the first frame whose probability is kept (frames are aligned). */
  private open(start: number, firstFrame: number): void {
    this.start = start;
    this.pauseFrom = undefined;
    this.probabilities = [];
    this.framesFrom = firstFrame;
  }

  /** End of the least speech-like frame in the last seconds (not in the first second). */
  private bestPause(frameEnd: number): number {
    const earliest = Math.max(this.start! + SAMPLE_RATE, frameEnd - CUT_SEARCH_SECONDS * SAMPLE_RATE);
    let best = frameEnd;
    let lowest = Number.POSITIVE_INFINITY;
    for (let i = this.probabilities.length - 1; i >= 0; i -= 1) {
      const end = this.framesFrom + (i + 1) * FRAME_SAMPLES;
      if (end - FRAME_SAMPLES < earliest) break;
      if (this.probabilities[i]! < lowest) {
        lowest = this.probabilities[i]!;
        best = end;
      }
    }
    return best;
  }
}
