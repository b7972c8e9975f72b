/**
 * Hand-out of a fixed set of slots, fair across groups, with a start deadline per waiter: a free
 * slot goes to the oldest waiter of the next group in turn (round robin over the groups that have
 * waiters, first come first served within a group). A group is a caption room, or a stream that
 * names none: at a conference one room's backlog (or a room with several streams) then never
 * holds another room's windows back by more than one decode per other group, where one FIFO line
 * would make every room wait behind it. A waiter whose deadline passes leaves the line with the
 * error `onTimeout` gives and never gets a slot. A free slot never goes to a newcomer while
 * others wait.
 */
interface Waiter<S> {
  resolve: (slot: S) => void;
  reject: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

/** The group of a waiter that names none. */
const NO_GROUP = '';

export class SlotQueue<S> {
  readonly #idle: S[];
  readonly #size: number;
  /** Each group's waiters, oldest first; a group is here only while it has waiters. */
  readonly #groups = new Map<string, Waiter<S>[]>();
  /** The groups with waiters in their turn order: the next slot goes to the first. */
  readonly #turns: string[] = [];
  readonly #onTimeout: () => Error;
  #waiting = 0;
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
    return this.#waiting;
  }

  /**
   * A slot once one is free and it is `group`'s turn, or the timeout error once `startDeadline`
   * (ms since epoch) passes.
   */
  acquire(startDeadline: number, group: string = NO_GROUP): Promise<S> {
    if (this.#closedWith) return Promise.reject(this.#closedWith);
    if (Date.now() > startDeadline) return Promise.reject(this.#onTimeout());
    const free = this.#waiting === 0 ? this.#idle.shift() : undefined;
    if (free !== undefined) return Promise.resolve(free);
    return new Promise((resolve, reject) => {
      const waiter: Waiter<S> = { resolve, reject };
      waiter.timer = setTimeout(
        () => {
          this.#remove(group, waiter);
          reject(this.#onTimeout());
        },
        Math.max(0, startDeadline - Date.now()),
      );
      const line = this.#groups.get(group);
      if (line) line.push(waiter);
      else {
        this.#groups.set(group, [waiter]);
        this.#turns.push(group);
      }
      this.#waiting += 1;
    });
  }

  /** Hands the slot to the next group's oldest waiter, or back to the idle ones. */
  release(slot: S): void {
    const group = this.#turns.shift();
    if (group === undefined) {
      this.#idle.push(slot);
      return;
    }
    const line = this.#groups.get(group)!;
    const next = line.shift()!;
    this.#waiting -= 1;
    // The group goes to the back of the turns if it still waits.
    if (line.length > 0) this.#turns.push(group);
    else this.#groups.delete(group);
    clearTimeout(next.timer);
    next.resolve(slot);
  }

  /** Refuses every waiter and every later `acquire` with `error`; released slots still return. */
  close(error: Error): void {
    this.#closedWith = error;
    for (const line of this.#groups.values()) {
      for (const waiter of line) {
        clearTimeout(waiter.timer);
        waiter.reject(error);
      }
    }
    this.#groups.clear();
    this.#turns.length = 0;
    this.#waiting = 0;
  }

  #remove(group: string, waiter: Waiter<S>): void {
    const line = this.#groups.get(group);
    const index = line?.indexOf(waiter) ?? -1;
    if (!line || index < 0) return;
    line.splice(index, 1);
    this.#waiting -= 1;
    if (line.length === 0) {
      this.#groups.delete(group);
      this.#turns.splice(this.#turns.indexOf(group), 1);
    }
  }
}
