/**
 * A check that runs at start, every `everyMs` after that (the wait starts again when a periodic
 * check ends) and whenever asked, one at a time and in the order asked: what the outputs and sources services' supervisors run over
 * their leases, every quarter of the lease time and at once when their API changes something.
 */
export class CheckLoop {
  #timer?: NodeJS.Timeout;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  /** `check` should handle its own faults: one that throws is ignored, and the loop goes on. */
  constructor(
    private readonly check: () => Promise<void>,
    private readonly everyMs: number,
  ) {}

  /** Runs a check now, then every `everyMs`. */
  start(): void {
    void this.run();
    this.#schedule();
  }

  /** Runs a check after those asked before; resolves when it is done (at once once stopped). */
  run(): Promise<void> {
    this.#running = this.#running
      .then(() => (this.#stopped ? undefined : this.check()))
      .catch(() => undefined);
    return this.#running;
  }

  /** No check starts after this; resolves when the one running has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      void this.run().finally(() => {
        if (!this.#stopped) this.#schedule();
      });
    }, this.everyMs);
  }
}
