/**
 * A translator's waits between its steps: a wakeable sleep ends early on a wake (a caption
 * queued, an ack), and a wake that comes while none is on (during a step) ends the next one at
 * once, so no work is left waiting for the poll; a backoff is not wakeable. Stop ends any sleep
 * and aborts the engine's request in flight (`signal`).
 */
export class Waits {
  private readonly abort = new AbortController();
  private wakeUp?: () => void;
  private woken = false;

  /** Aborted on stop: handed to the engine's requests. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Work may be waiting. */
  wake(): void {
    const wake = this.wakeUp;
    if (wake) {
      this.wakeUp = undefined;
      wake();
    } else this.woken = true;
  }

  stop(): void {
    this.abort.abort();
    this.wake();
  }

  sleep(ms: number, wakeable: boolean): Promise<void> {
    if (wakeable && this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const signal = this.abort.signal;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.wakeUp === done) this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      if (wakeable) this.wakeUp = done;
    });
  }
}
