/**
 * Whether the speech workers are the bottleneck of the whole conference (pure), from the gateway's
 * `/health` and every room's stream sources, polled by the links hub's board. Three signs:
 * windows waiting for a decode slot on two refreshes in a row (one look may catch a burst the slots
 * absorb at once); windows refused because their queue deadline passed since the last look
 * (captions already lost to waiting); and the rooms falling behind live together. The last is the
 * one an overloaded machine shows first: each source sends its next window only when the last is
 * answered, so nothing queues, and every room drifts behind alike until each skips to the live edge
 * on its own (CAPTION_LAG_BOUND_SECONDS, 8 s). One room behind is that room's trouble; half of
 * them at once is the shared capacity's.
 */
import type { SpeechHealth, StreamSource } from '@live-captions/protocol';

export type WorkersHealth = Pick<SpeechHealth, 'pending' | 'running' | 'workers' | 'queue_timeouts'>;

/**
 * Seconds behind live past which a source counts as late: above what a keeping-up room shows (a
 * 3 s window filling counts; `pnpm bench conference` measured per-room p95 3.5-5.4 s at loads kept),
 * below the lag bound at which rooms start skipping (8 s).
 */
export const LATE_SECONDS = 6;
/** The looks over which a source's worst lag counts: a skip to the live edge resets it. */
const LATE_LOOKS = 3;

export interface WorkersState {
  /** The board's line: the bottleneck and what to do, or how the workers are doing. */
  line: string;
  bottleneck: boolean;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
const ADVICE = 'add workers (CAPTION_WORKERS) or move rooms';

/** True when `value` is a usable health answer (a proxy's page or an old gateway is not one). */
export function isWorkersHealth(value: unknown): value is WorkersHealth {
  const health = value as Partial<Record<keyof WorkersHealth, unknown>> | null;
  return (
    typeof health === 'object' &&
    health !== null &&
    (['pending', 'running', 'workers', 'queue_timeouts'] as const).every(
      (key) => typeof health[key] === 'number',
    )
  );
}

/** The running sources that decode (live or silent), late or not over the last looks. */
function lateness(sources: readonly StreamSource[], history: Map<string, number[]>) {
  const decoding = sources.filter((s) => s.running && (s.state === 'live' || s.state === 'silent'));
  const seen = new Set<string>();
  let late = 0;
  for (const source of decoding) {
    seen.add(source.id);
    const looks = [...(history.get(source.id) ?? []), source.behindSeconds].slice(-LATE_LOOKS);
    history.set(source.id, looks);
    if (Math.max(...looks) > LATE_SECONDS) late += 1;
  }
  for (const id of [...history.keys()]) if (!seen.has(id)) history.delete(id);
  return { late, decoding: decoding.length };
}

export class WorkersWatch {
  #last: WorkersHealth | undefined;
  readonly #behind = new Map<string, number[]>();

  /**
   * The state after one look at `/health` (`undefined`: the gateway did not answer) and at every
   * room's stream sources (`undefined`: the sources service did not answer).
   */
  next(health: WorkersHealth | undefined, sources?: readonly StreamSource[]): WorkersState {
    const last = this.#last;
    this.#last = health;
    const { late, decoding } = sources ? lateness(sources, this.#behind) : { late: 0, decoding: 0 };
    // Two rooms at least, and half of those decoding: one slow stream is its own room's trouble.
    const together = late >= 2 && late * 2 >= decoding;
    const lateWords = `${late} of ${decoding} stream sources more than ${LATE_SECONDS} s behind live together`;
    if (!health) {
      if (together)
        return { line: `Speech workers are the bottleneck: ${lateWords}; ${ADVICE}`, bottleneck: true };
      return { line: 'Speech workers: unknown (the capture host does not answer)', bottleneck: false };
    }
    const waiting = health.pending > 0 && (last?.pending ?? 0) > 0;
    // A gateway restart resets its counters: only a rise on the same run counts.
    const timedOut = last !== undefined && health.queue_timeouts > last.queue_timeouts;
    const slots = plural(health.workers, 'decode slot');
    if (waiting || timedOut || together) {
      const signs: string[] = [];
      if (waiting || timedOut) {
        const lost = timedOut
          ? ` (${plural(health.queue_timeouts - last!.queue_timeouts, 'window')} timed out waiting)`
          : '';
        signs.push(`${plural(health.pending, 'window')} waiting for ${slots}${lost}`);
      }
      if (together) signs.push(lateWords);
      return { line: `Speech workers are the bottleneck: ${signs.join('; ')}; ${ADVICE}`, bottleneck: true };
    }
    return {
      line: `Speech workers: ${health.running} of ${slots} busy, ${plural(health.pending, 'window')} waiting`,
      bottleneck: false,
    };
  }
}
