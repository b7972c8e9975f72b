/**
 * First come, first served hand-out of a fixed set of slots, with a start deadline per waiter:
 * a waiter whose deadline passes leaves the line with the error `onTimeout` gives and never gets
 * a slot. No slot is handed out of turn (a free slot goes to the oldest waiter).
 */
interface Waiter<S> {
  resolve: (slot: S) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

export class SlotQueue<S> {
  readonly #idle: S[];
  readonly #size: number;
  readonly #waiters: Waiter<S>[] = [];
  readonly #onTimeout: () => Error;
  #closedWith: Error | undefined;

  constructor(slots: S[], onTimeout: () => Error) {
    this.#idle = [...slots];
    this.#size = slots.length;
    this.#onTimeout = onTimeout;
  }

  /** Slots handed out and not yet released. */
  get busy(): number {
    return this.#size - this.#idle.length;
  }

  /** Waiters in line. */
  get pending(): number {
    return this.#waiters.length;
  }

  /** A slot once one is free, or the timeout error once `startDeadline` (ms since epoch) passes. */
  acquire(startDeadline: number): Promise<S> {
    if (this.#closedWith) return Promise.reject(this.#closedWith);
    if (Date.now() > startDeadline) return Promise.reject(this.#onTimeout());
    const free = this.#waiters.length === 0 ? this.#idle.shift() : undefined;
    if (free !== undefined) return Promise.resolve(free);
    return new Promise((resolve, reject) => {
      const waiter: Waiter<S> = { resolve, reject };
      waiter.timer = setTimeout(
        () => {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          reject(this.#onTimeout());
        },
        Math.max(0, startDeadline - Date.now()),
      );
      this.#waiters.push(waiter);
    });
  }

  /** Hands the slot to the oldest waiter, or back to the idle ones. */
  release(slot: S): void {
    const next = this.#waiters.shift();
    if (next) {
      clearTimeout(next.timer);
      next.resolve(slot);
    } else {
      this.#idle.push(slot);
    }
  }

  /** Refuses every waiter and every later `acquire` with `error`; released slots still return. */
  close(error: Error): void {
    this.#closedWith = error;
    for (const waiter of this.#waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
  }
}
