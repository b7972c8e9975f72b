/**
 * Caption ids of one run of a source: `<source id's first 8>-<run>-<n>`. The run number is taken
 * from the database when the runner starts (one row update, whichever replica asks), `n` counts in
 * memory from 1. So an id never repeats within a room, across stops, deletes, restarts and
 * replicas: two runners of a source (a restart, a lease moving, a stale replica finishing its last
 * window) never share a run, and a source deleted while running still numbers its last windows on,
 * though its row (and its counter) is gone.
 */
import { randomBytes } from 'node:crypto';

export class CaptionIds {
  private n = 0;
  private readonly prefix: Promise<string>;

  /** `takeRun` resolves with a run number never given before for this source (0: none left). */
  constructor(sourceId: string, takeRun: () => Promise<number>) {
    const head = sourceId.slice(0, 8);
    // Without a run number (the row is gone, the database is away) a random one stands in: 48 bits,
    // marked `x` so that it can never equal a counted run.
    const random = () => `${head}-x${randomBytes(6).toString('hex')}`;
    this.prefix = takeRun().then(
      (run) => (run > 0 ? `${head}-${run}` : random()),
      () => random(),
    );
  }

  /** The next id; taken in call order, whenever the prefix arrives. */
  async next(): Promise<string> {
    this.n += 1;
    const n = this.n;
    return `${await this.prefix}-${n}`;
  }
}
