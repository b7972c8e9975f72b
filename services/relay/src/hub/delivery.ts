import { RelayCloseCode, type RelayGap, type RelayGapReason } from '@live-captions/protocol';
import { frameWithDelivery } from '../domain/frames.js';
import type { CloseConnection, Connection, HubState } from './types.js';

/** The caption frames are UTF-8 JSON kept as Buffers: sent as text frames. */
const TEXT_FRAME = Object.freeze({ binary: false });

/**
 * Delivery to readers with backpressure: a reader whose socket buffer is over `bufferedBytes` is
 * held back (blocked) and resumed by a sweep once it drains, or closed as a slow consumer after
 * `slowMs`; captions it lost meanwhile become a gap.
 */
export class Delivery {
  private readonly blocked = new Set<Connection>();
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly state: HubState,
    private readonly close: CloseConnection,
  ) {}

  /** Readers held back by a full socket buffer. */
  get blockedReaders(): number {
    return this.blocked.size;
  }

  /**
   * A room's newest caption to all its readers. A reader that had everything before it and has
   * room in its buffer (the usual case, thousands of times per caption with an audience) gets
   * the room's one encoded frame straight away, with no call or lookup per reader; the others go
   * through `pump`, which does the same plus catching up, holding back and gaps.
   */
  fanOut(readers: Iterable<Connection>, newest: { sequence: number; frame: Buffer }): void {
    const limit = this.state.limits.bufferedBytes;
    const previous = newest.sequence - 1;
    let sent = 0;
    for (const reader of readers) {
      const ws = reader.ws;
      if (
        reader.lastSent === previous &&
        reader.blockedSince === 0 &&
        !reader.deliveries &&
        !reader.closing &&
        ws.readyState === ws.OPEN &&
        ws.bufferedAmount < limit
      ) {
        ws.send(newest.frame, TEXT_FRAME);
        reader.lastSent = newest.sequence;
        sent += 1;
      } else {
        this.pump(reader);
      }
    }
    this.state.stats.delivered += sent;
  }

  /** Writes the captions a reader has not had yet while its buffer has room. */
  pump(reader: Connection): void {
    const log = reader.room!.log;
    const ws = reader.ws;
    while (reader.lastSent < log.next - 1) {
      if (reader.closing || ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount >= this.state.limits.bufferedBytes) {
        if (reader.blockedSince === 0) {
          reader.blockedSince = this.state.now();
          this.blocked.add(reader);
          this.sweeper ??= setInterval(
            () => this.sweep(),
            Math.max(10, Math.min(250, this.state.limits.slowMs / 4)),
          );
        }
        return;
      }
      const entry = log.get(reader.lastSent + 1);
      if (!entry) {
        // What it still needs left the history while it was held back: tell it so with a gap,
        // then replay everything still held and go live, as a join with an old cursor does.
        this.gap(reader, 'history-expired', log.oldest);
        continue;
      }
      ws.send(reader.deliveries ? frameWithDelivery(entry.frame, entry.delivery) : entry.frame, TEXT_FRAME);
      reader.lastSent = entry.sequence;
      this.state.stats.delivered += 1;
    }
    this.unblock(reader);
  }

  /** Sends a gap frame mid-stream; the reader continues with `next`. */
  gap(reader: Connection, reason: RelayGapReason, next: number): void {
    const log = reader.room!.log;
    const frame: RelayGap = { gap: reason, epoch: log.epoch, next };
    reader.ws.send(JSON.stringify(frame));
    reader.lastSent = next - 1;
    this.state.stats.gaps += 1;
    reader.logger.debug({ room: reader.room?.name, ip: reader.ip, gap: reason, next }, 'gap sent');
  }

  /** Forgets a reader's blocked state (it caught up, or it is closing). */
  unblock(reader: Connection): void {
    if (reader.blockedSince === 0) return;
    reader.blockedSince = 0;
    this.blocked.delete(reader);
    if (this.blocked.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** Stops the sweep timer (shutdown). */
  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = this.state.now();
    for (const reader of this.blocked) {
      if (now - reader.blockedSince >= this.state.limits.slowMs) this.slow(reader);
      else if (reader.ws.bufferedAmount < this.state.limits.bufferedBytes) this.pump(reader);
    }
  }

  private slow(reader: Connection): void {
    this.state.stats.slowConsumers += 1;
    reader.logger.info({ room: reader.room?.name, ip: reader.ip }, 'slow consumer closed');
    this.close(reader, RelayCloseCode.tryAgainLater, 'Slow consumer');
    // A close frame queued behind a full buffer may never get through.
    if (reader.ws.bufferedAmount >= this.state.limits.bufferedBytes) reader.ws.terminate();
  }
}
