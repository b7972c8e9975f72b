/// <reference lib="dom" />
/**
 * What a page keeps for its tab (`sessionStorage`, see reader-link.ts for how long that is): the
 * latest value of something that changes often (a reader's cursor and what it shows), written at
 * most once per `everyMs` and at once when the page goes away (`pagehide`: a reload, a closed
 * tab, a phone putting the page in the background). A crashed tab loses at most the last
 * `everyMs`, which the relay replays from the kept cursor.
 */
import { loadKept, storeKept, tabStorage } from './reader-link.js';

export class TabKeep<T> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private latest: (() => T) | undefined;

  constructor(
    private readonly key: string,
    private readonly everyMs = 1000,
    private readonly storage: Storage | undefined = tabStorage(),
  ) {
    addEventListener('pagehide', () => this.flush());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') this.flush();
    });
  }

  load(): Partial<T> | undefined {
    return loadKept<T>(this.storage, this.key);
  }

  /** Keeps `value()` (called when written, so it is the latest). */
  save(value: () => T): void {
    this.latest = value;
    this.timer ??= setTimeout(() => this.flush(), this.everyMs);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.latest) return;
    storeKept(this.storage, this.key, this.latest());
    this.latest = undefined;
  }

  forget(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.latest = undefined;
    try {
      this.storage?.removeItem(this.key);
    } catch {
      // Nothing kept, nothing to forget.
    }
  }
}
