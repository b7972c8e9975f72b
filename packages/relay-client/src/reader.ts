import {
  RELAY_PROTOCOL,
  type RelayCaption,
  type RelayCursor,
  type RelayGap,
  type RelayJoin,
  type RelayJoined,
  type RelayServerFrame,
} from '@live-captions/protocol';
import { RelayConnection, type RelayConnectionOptions } from './connection.js';

export interface RelayReaderOptions extends RelayConnectionOptions {
  /** Resume after this position (e.g. kept from an earlier page load). */
  cursor?: RelayCursor;
  /**
   * Bounds what a join replays to the captions of the last `replayMs` milliseconds (the relay
   * retains 30 minutes): a reader without a cursor gets those first, then live ones; one whose
   * cursor is older skips to them (`onGap` with `history-expired`). Unset: a fresh reader starts
   * at the live edge and a cursor gets everything the relay still holds after it. The reader's
   * `replayMs` field starts with this value and may be cleared once joined (see there).
   */
  replayMs?: number;
  /**
   * Ask for each caption's `delivery` (the publisher's identity): a reader that must tell lost
   * captions from a relay restart that lost nothing (the outputs service). Needs a relay that
   * knows the join field.
   */
  deliveries?: boolean;
  onCaption: (caption: RelayCaption) => void;
  /** Captions were missed: the history no longer held them, or the relay restarted. */
  onGap?: (gap: RelayGap) => void;
}

/**
 * Reads a room with the read token: captions in room order, reconnecting with its cursor so that
 * the relay replays what was missed, and reporting gaps it cannot fill.
 */
export class RelayReader extends RelayConnection<RelayReaderOptions> {
  /** Position of the last caption handed to `onCaption`. */
  cursor?: RelayCursor;
  /**
   * The bound the next joins send (from the options). A page that bounds only its first join (an
   * audience page: the last minutes when it opens, but everything since its cursor after an
   * outage) clears it once joined.
   */
  replayMs?: number;

  constructor(options: RelayReaderOptions) {
    super(options);
    this.cursor = options.cursor;
    this.replayMs = options.replayMs;
    this.start();
  }

  protected joinFrame(): RelayJoin {
    const join: RelayJoin = {
      protocol: RELAY_PROTOCOL,
      join: this.options.room,
      role: 'read',
      token: this.options.token,
      beat: true,
    };
    if (this.cursor) join.cursor = { ...this.cursor };
    if (this.replayMs !== undefined) join.replayMs = this.replayMs;
    if (this.options.deliveries) join.deliveries = true;
    return join;
  }

  protected onJoined(joined: RelayJoined): void {
    if (joined.gap) {
      // `next` is the oldest caption still held: the replay starts there, so a reconnect before it
      // arrives resumes there too instead of reporting the same gap again.
      this.cursor = { epoch: joined.epoch, sequence: joined.next - 1 };
      this.options.onGap?.({ gap: joined.gap, epoch: joined.epoch, next: joined.next });
    } else if (!this.cursor || this.cursor.epoch !== joined.epoch) {
      this.cursor = { epoch: joined.epoch, sequence: joined.next - 1 };
    }
  }

  protected onFrame(frame: RelayServerFrame): void {
    if ('msg' in frame) {
      const { epoch, sequence } = frame.relay;
      if (this.cursor && this.cursor.epoch === epoch && sequence <= this.cursor.sequence) return;
      this.cursor = { epoch, sequence };
      this.options.onCaption(frame);
    } else if ('gap' in frame && !('joined' in frame)) {
      this.cursor = { epoch: frame.epoch, sequence: frame.next - 1 };
      this.options.onGap?.(frame);
    }
  }
}
