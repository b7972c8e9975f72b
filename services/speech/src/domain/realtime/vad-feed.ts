/**
 * A session's audio on its way to its streaming VAD: whole 512-sample frames, one call at a time
 * (an instance runs one call at once, on its own native thread, and answers later), each answer
 * handed on with the position of its first frame. A restart forgets what was not scored yet.
 */
import { FRAME_SAMPLES } from './turns.js';

export interface StreamingVad {
  /** Speech probability of each 512-sample frame of `samples`, continuing the previous call. */
  next(samples: Float32Array): Promise<Float32Array>;
}

export interface VadListener {
  /** The frames from position `from` on had these probabilities. */
  scored(from: number, probabilities: Float32Array): void;
  failed(error: unknown): void;
  /** A call is over (answered or failed), and the next one started if there was audio for it. */
  settled(): void;
}

export class VadFeed {
  /** Samples not given to the VAD yet, starting at `position`. */
  private queue: Float32Array[] = [];
  private queued = 0;
  private given = 0;
  private running: Promise<void> | undefined;
  /** Bumped by each restart: answers to calls made before it are dropped. */
  private generation = 0;
  private stopped = false;

  constructor(
    private readonly vad: StreamingVad,
    private readonly listener: VadListener,
  ) {}

  /** End of the audio given to the VAD (scored, or being scored). */
  get position(): number {
    return this.given;
  }

  /** Every whole frame of the audio added is scored; a rest under a frame waits for more. */
  get caughtUp(): boolean {
    return this.running === undefined && this.queued < FRAME_SAMPLES;
  }

  add(samples: Float32Array): void {
    this.queue.push(samples);
    this.queued += samples.length;
  }

  /** Scoring goes on from `position`: what was not scored yet is dropped with the audio before. */
  restart(position: number): void {
    this.queue = [];
    this.queued = 0;
    this.given = position;
    this.generation += 1;
  }

  /** Gives the VAD the whole frames added, unless a call is in progress (it pumps again after). */
  pump(): void {
    if (this.running || this.stopped || this.queued < FRAME_SAMPLES) return;
    const joined = new Float32Array(this.queued);
    let at = 0;
    for (const chunk of this.queue) {
      joined.set(chunk, at);
      at += chunk.length;
    }
    const take = Math.floor(joined.length / FRAME_SAMPLES) * FRAME_SAMPLES;
    this.queue = [joined.slice(take)];
    this.queued = joined.length - take;
    const from = this.given;
    this.given += take;
    const generation = this.generation;
    this.running = this.vad
      .next(joined.subarray(0, take))
      .then(
        (probabilities) => {
          if (generation === this.generation) this.listener.scored(from, probabilities);
        },
        (error: unknown) => this.listener.failed(error),
      )
      .finally(() => {
        this.running = undefined;
        this.pump();
        this.listener.settled();
      });
  }

  /** No more calls; resolves once the one in progress, if any, is over. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }
}
