/**
 * A realtime session's commits once Stop is pressed (no DOM): the commit awaiting its answer
 * (`input_audio_buffer.committed`, or an `error` naming it), whether one was answered since the
 * last commit of the rest (the server has then read all the audio sent before it), and the
 * utterance the server's VAD may open on the last frames after that answer: nothing more will
 * come to close it, so it is committed too (5 times at most, then dropped).
 */
import type { RealtimeErrorEvent } from './realtime-session-options.js';

/** What an `error` event was to the commits. */
export type CommitError = 'empty' | 'answer' | 'other';

export class RealtimeCommits {
  /** The commit awaiting its answer. */
  private awaiting?: string;
  private answered = false;
  private recommits = 0;
  private count = 0;

  constructor(private readonly send: (event: Record<string, unknown>) => void) {}

  /** A commit was answered since the rest was committed, and none awaits its answer. */
  get settled(): boolean {
    return this.answered && this.awaiting === undefined;
  }

  /** Stop, or a reconnect while stopping: the rest of the audio was sent; this commits it. */
  commitRest(): void {
    this.answered = false;
    this.recommits = 0;
    this.commit();
  }

  /** `input_audio_buffer.committed`. */
  committed(): void {
    if (!this.awaiting) return;
    this.answered = true;
    this.awaiting = undefined;
  }

  /**
   * An `error` event: `empty` when, draining, there was nothing (or under 100 ms) to commit (an
   * utterance the VAD opened on the last frames is empty: the session drops it); `answer` when it
   * answers our commit; `other` for the server's complaint, to show.
   */
  error({ error }: RealtimeErrorEvent, draining: boolean): CommitError {
    const ours = this.awaiting && (error?.event_id === this.awaiting || !error?.event_id);
    if (error?.code === 'input_audio_buffer_commit_empty' && draining) {
      this.answered = true;
      if (ours) this.awaiting = undefined;
      return 'empty';
    }
    if (!ours) return 'other';
    this.answered = true;
    this.awaiting = undefined;
    return 'answer';
  }

  /**
   * The server's VAD runs behind the audio: an utterance still open (`speaking`) after the commit
   * was answered is committed too; `drop` once that was tried 5 times.
   */
  lateUtterance(speaking: boolean): 'drop' | undefined {
    if (!this.answered || this.awaiting || !speaking) return undefined;
    if (this.recommits >= 5) return 'drop';
    this.recommits += 1;
    this.commit();
    return undefined;
  }

  private commit(): void {
    this.count += 1;
    this.awaiting = `evt_capture_${this.count}`;
    this.send({ type: 'input_audio_buffer.commit', event_id: this.awaiting });
  }
}
