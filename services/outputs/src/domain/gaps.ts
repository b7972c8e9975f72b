/**
 * Where captions were missed, and only there. A relay restarted without its history says only
 * that its stream started again: whether anything went with it, only the publishers know. Each
 * publish carries its delivery identity (`client`, `sequence`), and one publisher's sequences in a
 * room are contiguous (one caption in flight, the next sequence after each ack), so this service
 * keeps, per publisher, the last sequence it accepted (in the database, through its own
 * restarts) and the runs of sequences its reader has seen (in memory: frames that need no write,
 * such as a clear, fill a run). A caption whose run starts past the stored sequence + 1 tells that
 * publishes in between never reached this service: they are the gap, marked just before it.
 */

/** The contiguous sequences of one publisher this reader has seen, ending at `sequence`. */
export interface DeliveryRun {
  client: string;
  /** First sequence of the run. */
  from: number;
  /** The caption's own sequence (the run's end). */
  sequence: number;
}

/** Publishers remembered per room reader (a page reload is a new publisher; old ones go first). */
const MAX_PUBLISHERS = 1000;

/** The runs of delivery sequences one room's reader has seen, per publisher. */
export class DeliveryRuns {
  private readonly runs = new Map<string, { from: number; to: number }>();

  /** Takes one frame's delivery; returns the run it ends (or lies in, for a replayed frame). */
  see(delivery: { client: string; sequence: number }): DeliveryRun {
    const { client, sequence } = delivery;
    let run = this.runs.get(client);
    if (run && sequence === run.to + 1) run.to = sequence;
    else if (!run || sequence < run.from || sequence > run.to) {
      run = { from: sequence, to: sequence };
      this.runs.delete(client);
      this.runs.set(client, run);
      if (this.runs.size > MAX_PUBLISHERS) this.runs.delete(this.runs.keys().next().value!);
    }
    return { client, from: run.from, sequence };
  }
}

/**
 * What a caption's run says against the publisher's last accepted sequence: `again` for a
 * publish already accepted (resent to a relay that restarted before its ack), else how many of
 * the publisher's publishes are missing before the run (0 when none, or when nothing is known).
 */
export function missedBefore(stored: number | undefined, run: DeliveryRun): 'again' | number {
  if (stored === undefined) return 0;
  if (run.sequence <= stored) return 'again';
  return Math.max(0, run.from - 1 - stored);
}

const clock = (at: number) => new Date(at).toISOString().slice(11, 19);

/**
 * A destination's `lastError` for a gap: what happened and what to do. It stays until the
 * destination delivers again (a platform's next POST, the archive's next caption).
 */
export function gapMessage(
  gap: { kind: 'relay-restarted'; missed: number; at: number } | { kind: 'history-expired'; next: number },
): string {
  if (gap.kind === 'history-expired')
    return (
      `captions missed before caption ${gap.next}: the relay's history no longer held them (this ` +
      `service was away longer than the relay keeps captions). The archive marks the place; to ` +
      `keep more, raise the relay's replayMs and its byte bounds`
    );
  return (
    `${gap.missed} ${gap.missed === 1 ? 'caption' : 'captions'} missed before ${clock(gap.at)} UTC: ` +
    `the relay restarted without its history before this service read them. The archive marks ` +
    `the place; to keep them through a relay restart, run the relay with Redis (REDIS_URL)`
  );
}
