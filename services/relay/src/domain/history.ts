import type { RelayLimits } from './limits.js';

/** One retained caption of a room. */
export interface Retained {
  readonly room: RoomLog;
  readonly sequence: number;
  readonly at: number;
  /** The frame readers get, encoded once for all of them. */
  readonly frame: Buffer;
  readonly bytes: number;
  /** `client:sequence` of the delivery that published it. */
  readonly delivery: string;
  /** Caption fields as JSON, compared when the same delivery comes again. */
  readonly body: string;
  evicted: boolean;
}

/**
 * The stream of one room in this relay process: an epoch, the next sequence, and the retained
 * captions (contiguous sequences, oldest first) with their delivery identities.
 */
export class RoomLog {
  next = 1;
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

  /** @internal used by Retention */
  push(entry: Retained): void {
    this.entries.push(entry);
    this.deliveries.set(entry.delivery, entry);
    this.next = entry.sequence + 1;
  }

  /** @internal used by Retention */
  shift(): Retained | undefined {
    const entry = this.entries.shift();
    if (entry) {
      entry.evicted = true;
      if (this.deliveries.get(entry.delivery) === entry) this.deliveries.delete(entry.delivery);
    }
    return entry;
  }
}

/**
 * Retained captions of all rooms, bounded per room (age, count) and across rooms (count, bytes).
 * The oldest captions go first; a caption is never dropped while younger ones of its room stay.
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

  append(room: RoomLog, fields: { at: number; frame: Buffer; delivery: string; body: string }): Retained {
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
    while (room.entries.length > this.limits.replayMessages) this.evict(room);
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
