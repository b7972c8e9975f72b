/**
 * The editor's review (pure): captions from the source room wait in a FIFO queue (bounded), one
 * is under review in the draft, and in timed mode each goes out when its own countdown, started at
 * its arrival, ends: a pipeline, so captions arriving faster than the delay are not held back by
 * the ones before them.
 */

export interface ReviewItem {
  /** Caption id from the source room. */
  id: string | number;
  text: string;
  label?: string;
  ln?: string;
  /** A guard removed hallucinated or repeated text from it (the editor marks it). */
  trimmed?: boolean;
  /** When it arrived (ms). */
  receivedAt: number;
  /** When the operator last edited it under review (ms): the countdown restarts from there. */
  editedAt?: number;
}

export const REVIEW_QUEUE_LIMIT = 100;

/** Modes of the editor: live sends each caption as it arrives; timed after a delay; manual waits. */
export type EditorMode = 'live' | 'timed' | 'manual';
export const DEFAULT_TIMED_DELAY_S = 5;

/** When a caption goes out in timed mode: its delay counted from its arrival, or from its last edit. */
export function dueAt(item: ReviewItem, delayMs: number): number {
  return Math.max(item.receivedAt, item.editedAt ?? item.receivedAt) + delayMs;
}

export class ReviewQueue<Item extends ReviewItem = ReviewItem> {
  private readonly items: Item[] = [];
  /** Captions dropped because the queue was full (the oldest go first). */
  dropped = 0;

  constructor(private readonly limit = REVIEW_QUEUE_LIMIT) {}

  get length(): number {
    return this.items.length;
  }

  get all(): readonly Item[] {
    return this.items;
  }

  push(item: Item): void {
    this.items.push(item);
    while (this.items.length > this.limit) {
      this.items.shift();
      this.dropped += 1;
    }
  }

  shift(): Item | undefined {
    return this.items.shift();
  }

  /** Takes `item` out of the queue (it was handled elsewhere); false when it is not there. */
  remove(item: Item): boolean {
    const index = this.items.indexOf(item);
    if (index < 0) return false;
    this.items.splice(index, 1);
    return true;
  }

  /** Age of the oldest waiting caption in ms (0 when empty). */
  age(now: number): number {
    const head = this.items[0];
    return head ? Math.max(0, now - head.receivedAt) : 0;
  }
}

/**
 * The caption under review and the ones waiting behind it. `advance` brings the next one into
 * review; `releaseDue` is timed mode's clock step.
 */
export class ReviewDesk<Item extends ReviewItem = ReviewItem> {
  current: Item | undefined;
  readonly queue: ReviewQueue<Item>;

  constructor(limit = REVIEW_QUEUE_LIMIT) {
    this.queue = new ReviewQueue<Item>(limit);
  }

  /** Queues a caption; it comes into review at once when nothing is under review and `free`. */
  arrive(item: Item, free = true): void {
    this.queue.push(item);
    if (!this.current && free) this.advance();
  }

  /** The caption under review first, then those waiting, in order. */
  get pending(): Item[] {
    return this.current ? [this.current, ...this.queue.all] : [...this.queue.all];
  }

  /** The next waiting caption comes into review (or none). */
  advance(): Item | undefined {
    this.current = this.queue.shift();
    return this.current;
  }

  /**
   * Timed mode at `now`: every caption whose countdown has ended, the one under review first, goes
   * to `send` in order (which must call `advance`). Returns how many went out.
   */
  releaseDue(now: number, delayMs: number, send: (item: Item) => void): number {
    let sent = 0;
    while (this.current && dueAt(this.current, delayMs) <= now) {
      const before = this.current;
      send(before);
      sent += 1;
      // A `send` that did not move on would loop for ever.
      if (this.current === before) this.advance();
    }
    return sent;
  }
}
