/**
 * How far each live stream is behind: its backlog (audio captured but not yet captioned), the
 * real-time factor of its decodes and their queue wait. The lag watchdog of a realtime session
 * and the capture page report backlogs here; /health and /metrics read it. A stream not heard
 * of for `idleMs` is forgotten, so the set stays as small as the live streams.
 */

export interface StreamLag {
  /** Seconds of audio captured but not yet captioned (0 when unknown). */
  backlogSeconds: number;
  /** Inference seconds per audio second of its last decodes (smoothed). */
  realTimeFactor: number;
  /** Seconds its last decode waited in the queue. */
  queueWaitSeconds: number;
  updatedAt: number;
}

/** Default backlog bound past which a stream skips to the live edge (CAPTION_LAG_BOUND_SECONDS). */
export const DEFAULT_LAG_BOUND_SECONDS = 8;
/** Weight of the newest decode in the smoothed real-time factor. */
const SMOOTHING = 0.3;

export class StreamLagBoard {
  private readonly streams = new Map<string, StreamLag>();
  /** Set by the app: counts live-edge skips (seconds of audio skipped) per path. */
  onSkip: (path: 'native' | 'realtime', seconds: number) => void = () => undefined;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly idleMs = 60_000,
  ) {}

  /** One decode of the stream finished. */
  decoded(
    streamId: string,
    result: { inferenceSeconds: number; audioSeconds: number; queueSeconds: number },
  ): void {
    const lag = this.entry(streamId);
    if (result.audioSeconds > 0) {
      const rtf = result.inferenceSeconds / result.audioSeconds;
      lag.realTimeFactor = lag.updatedAt === 0 ? rtf : SMOOTHING * rtf + (1 - SMOOTHING) * lag.realTimeFactor;
    }
    lag.queueWaitSeconds = result.queueSeconds;
    lag.updatedAt = this.now();
  }

  /** The stream's own count of audio not yet captioned. */
  backlog(streamId: string, seconds: number): void {
    const lag = this.entry(streamId);
    lag.backlogSeconds = Math.max(0, seconds);
    lag.updatedAt = this.now();
  }

  forget(streamId: string): void {
    this.streams.delete(streamId);
  }

  /** The live streams' figures (idle ones dropped). */
  entries(): Array<[string, StreamLag]> {
    const oldest = this.now() - this.idleMs;
    for (const [id, lag] of this.streams) if (lag.updatedAt < oldest) this.streams.delete(id);
    return [...this.streams];
  }

  /** The largest backlog of a live stream, in seconds (0 without streams). */
  maxBacklogSeconds(): number {
    return this.entries().reduce((max, [, lag]) => Math.max(max, lag.backlogSeconds), 0);
  }

  private entry(streamId: string): StreamLag {
    let lag = this.streams.get(streamId);
    if (!lag) {
      lag = { backlogSeconds: 0, realTimeFactor: 0, queueWaitSeconds: 0, updatedAt: 0 };
      this.streams.set(streamId, lag);
    }
    return lag;
  }
}
