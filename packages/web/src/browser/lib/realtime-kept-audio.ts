/**
 * The realtime session's audio not known to be transcribed (no DOM): 24 kHz samples numbered
 * from the session's start, how far they were sent on the current connection, where that
 * connection's audio starts (its ms 0) and how far transcripts reach. Audio leaves only once its
 * transcript is in, or when it was silence the server's VAD has long passed.
 */
import { REALTIME_RATE } from './realtime-protocol.js';

/** Audio kept before an utterance's start when it is sent again (the server's prefix padding). */
const REPLAY_LEAD_SAMPLES = REALTIME_RATE / 2;
/** Audio kept while no utterance is open: the server's VAD reports a start only after a while. */
const VAD_LAG_SAMPLES = REALTIME_RATE * 3;

export class KeptAudio {
  /** The kept samples; `samples[0]` is sample number `start`. */
  samples = new Float32Array(0);
  start = 0;
  /** Samples sent on the current connection, and where its audio (ms 0) starts. */
  sentUpTo = 0;
  connectionBase = 0;
  /** End of the last transcribed utterance (samples). */
  doneUpTo = 0;

  get end(): number {
    return this.start + this.samples.length;
  }

  append(samples: Float32Array): void {
    if (samples.length === 0) return;
    const merged = new Float32Array(this.samples.length + samples.length);
    merged.set(this.samples);
    merged.set(samples, this.samples.length);
    this.samples = merged;
  }

  /** A new connection: everything kept is sent again, its audio starts where the kept audio does. */
  rebase(): void {
    this.connectionBase = this.sentUpTo = this.start;
  }

  /** The audio not sent yet on this connection, in chunks of at most `maxSamples`. */
  *unsent(maxSamples: number): Generator<Float32Array> {
    while (this.sentUpTo < this.end) {
      const from = this.sentUpTo - this.start;
      const chunk = this.samples.subarray(from, Math.min(this.samples.length, from + maxSamples));
      this.sentUpTo += chunk.length;
      yield chunk;
    }
  }

  /** A transcript reaches `audioEndMs` of this connection's audio. */
  transcribedTo(audioEndMs: number): void {
    this.doneUpTo = Math.max(this.doneUpTo, this.connectionBase + (audioEndMs * REALTIME_RATE) / 1000);
  }

  /**
   * Drops what is transcribed or was silence before any utterance; `unfinishedFromMs`: where
   * the first utterance without its transcript starts on this connection, if any.
   */
  trim(unfinishedFromMs: number | undefined): void {
    const from =
      unfinishedFromMs !== undefined
        ? this.connectionBase + (unfinishedFromMs * REALTIME_RATE) / 1000 - REPLAY_LEAD_SAMPLES
        : this.sentUpTo - VAD_LAG_SAMPLES;
    const keepFrom = Math.min(this.sentUpTo, Math.max(this.start, this.doneUpTo, Math.floor(from)));
    if (keepFrom <= this.start) return;
    this.samples = this.samples.slice(keepFrom - this.start);
    this.start = keepFrom;
  }

  /**
   * Drops the oldest audio beyond `maxSamples` (the gateway has been away too long); returns the
   * samples dropped. A connection's audio is sent as it comes, so what goes was sent already or
   * is resent from the new start on the next connection.
   */
  dropBeyond(maxSamples: number): number {
    const excess = this.samples.length - maxSamples;
    if (excess <= 0) return 0;
    this.samples = this.samples.slice(excess);
    this.start += excess;
    this.sentUpTo = Math.max(this.sentUpTo, this.start);
    return excess;
  }

  /** Forgets the kept audio (discarded, or the session is over). */
  clear(): void {
    this.samples = new Float32Array(0);
  }

  /** Every transcript is in: nothing is waiting any more. */
  release(): void {
    this.start += this.samples.length;
    this.clear();
  }
}
