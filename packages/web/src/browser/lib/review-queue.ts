/** The editor's FIFO review queue (pure): captions from the source room wait here for review. */

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
}

export const REVIEW_QUEUE_LIMIT = 100;

export class ReviewQueue {
  private readonly items: ReviewItem[] = [];
  /** Captions dropped because the queue was full (the oldest go first). */
  dropped = 0;

  constructor(private readonly limit = REVIEW_QUEUE_LIMIT) {}

  get length(): number {
    return this.items.length;
  }

  get all(): readonly ReviewItem[] {
    return this.items;
  }

  push(item: ReviewItem): void {
    this.items.push(item);
    while (this.items.length > this.limit) {
      this.items.shift();
      this.dropped += 1;
    }
  }

  shift(): ReviewItem | undefined {
    return this.items.shift();
  }

  /** Age of the oldest waiting caption in ms (0 when empty). */
  age(now: number): number {
    const head = this.items[0];
    return head ? Math.max(0, now - head.receivedAt) : 0;
  }
}

/** Modes of the editor: live publishes edits as interim text; timed sends after a delay; manual waits. */
export type EditorMode = 'live' | 'timed' | 'manual';
export const DEFAULT_TIMED_DELAY_S = 5;
