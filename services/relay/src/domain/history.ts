import type { RelayLimits } from './limits.js';

/** One retained caption of a room. */
export interface Retained {
  readonly room: RoomLog;
  readonly sequence: number;
  /** When the relay took the publish (ms since 1970; Redis's clock in cluster mode). */
  readonly at: number;
  /**
   * The frame readers get, encoded once for all of them. It starts with the caption's body (see
   * `captionFrame`), which is how a duplicate publish is compared: no second copy is kept.
   */
  readonly frame: Buffer;
  readonly bytes: number;
  /** `client:sequence` of the delivery that published it. */
  readonly delivery: string;
  evicted: boolean;
}

/**
 * The stream of one room in this relay process: an epoch, the next sequence, and the retained
 * captions (contiguous sequences, oldest first) with their delivery identities.
 */
export class RoomLog {
  next = 1;
  /** Bytes of the retained frames (bounded by `replayRoomBytes`). */
  bytes = 0;
  readonly entries: Retained[] = [];
  private readonly deliveries = new Map<string, Retained>();

  constructor(readonly epoch: string) {}

  /** Sequence of the oldest retained caption (`next` when none is retained). */
  get oldest(): number {
    return this.entries[0]?.sequence ?? this.next;
  }

  get(sequence: number): Retained | undefined {
    const first = this.entries[0];
    return first ? this.entries[sequence - first.sequence] : undefined;
  }

  byDelivery(key: string): Retained | undefined {
    return this.deliveries.get(key);
  }

  /**
   * Sequence of the oldest retained caption taken after `cutoff` (ms), `next` when none was: where
   * a replay bounded in time starts. Captions are retained in the order they were taken.
   */
  firstAfter(cutoff: number): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.entries[middle]!.at <= cutoff) low = middle + 1;
      else high = middle;
    }
    return this.entries[low]?.sequence ?? this.next;
  }

  /** @internal used by Retention */
  push(entry: Retained): void {
    this.entries.push(entry);
    this.deliveries.set(entry.delivery, entry);
    this.next = entry.sequence + 1;
    this.bytes += entry.bytes;
  }

  /** @internal used by Retention */
  shift(): Retained | undefined {
    const entry = this.entries.shift();
    if (entry) {
      entry.evicted = true;
      this.bytes -= entry.bytes;
      if (this.deliveries.get(entry.delivery) === entry) this.deliveries.delete(entry.delivery);
    }
    return entry;
  }
}

/**
 * Retained captions of all rooms, bounded per room (age, count, bytes) and across rooms (count,
 * bytes). The oldest captions go first; a caption is never dropped while younger ones of its room
 * stay.
 */
export class Retention {
  messages = 0;
  bytes = 0;
  /** Every retained caption in publish order; evicted ones are skipped lazily. */
  private queue: Retained[] = [];
  private head = 0;

  constructor(private limits: RelayLimits) {}

  setLimits(limits: RelayLimits): void {
    this.limits = limits;
  }

  append(room: RoomLog, fields: { at: number; frame: Buffer; delivery: string }): Retained {
    const entry: Retained = {
      room,
      sequence: room.next,
      bytes: fields.frame.length,
      evicted: false,
      ...fields,
    };
    room.push(entry);
    this.queue.push(entry);
    this.messages += 1;
    this.bytes += entry.bytes;
    while (room.entries.length > this.limits.replayMessages || room.bytes > this.limits.replayRoomBytes)
      this.evict(room);
    this.enforceGlobal();
    return entry;
  }

  /** Drops captions older than `replayMs` in `room`. */
  expire(room: RoomLog, now: number): void {
    const cutoff = now - this.limits.replayMs;
    while ((room.entries[0]?.at ?? Number.POSITIVE_INFINITY) <= cutoff) this.evict(room);
  }

  /** Drops everything a room retains (room removed). */
  clear(room: RoomLog): void {
    while (room.entries.length > 0) this.evict(room);
  }

  private evict(room: RoomLog): void {
    const entry = room.shift();
    if (!entry) return;
    this.messages -= 1;
    this.bytes -= entry.bytes;
  }

  private enforceGlobal(): void {
    while (this.messages > this.limits.replayTotalMessages || this.bytes > this.limits.replayBytes) {
      const oldest = this.queue[this.head++];
      if (!oldest) break;
      // The oldest caption of all is the oldest of its room: rooms append in publish order too.
      if (!oldest.evicted) this.evict(oldest.room);
    }
    while (this.head < this.queue.length && this.queue[this.head]!.evicted) this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
