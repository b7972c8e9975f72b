/**
 * Whether captions were really missed (pure). The relay reports `relay-restarted` whenever it
 * restarted, even when nothing was published meanwhile; the capture pages number their captions
 * `<prefix>-<n>` without holes, so after a restart a hole in a known prefix's numbers is the real
 * sign. `expired` (the history no longer held them) is always real.
 */
const NUMBERED = /^(.*)-(\d+)$/;

export class GapWatch {
  private readonly last = new Map<string, number>();
  private suspect = false;

  /** The reader reported a gap; true when it certainly lost captions. */
  gap(kind: string): boolean {
    if (kind !== 'relay-restarted') return true;
    this.suspect = true;
    return false;
  }

  /** A caption arrived; true when it shows that captions went missing after a restart. */
  caption(id: string | number): boolean {
    const match = NUMBERED.exec(String(id));
    if (!match) return false;
    const prefix = match[1]!;
    const n = Number(match[2]);
    const previous = this.last.get(prefix);
    // A transcript and its translation share an id: never lower the mark.
    if (previous === undefined || n > previous) this.last.set(prefix, n);
    if (!this.suspect || previous === undefined) return false;
    this.suspect = false;
    return n > previous + 1;
  }
}
