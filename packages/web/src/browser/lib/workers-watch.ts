/**
 * Whether the speech workers are the bottleneck of the whole conference (pure), from the gateway's
 * `/health` polled by the links hub's board: windows waiting for a decode slot on two refreshes
 * in a row (one look may catch a burst the slots absorb at once), or windows refused because
 * their queue deadline passed since the last look (captions already lost to waiting).
 */
import type { SpeechHealth } from '@live-captions/protocol';

export type WorkersHealth = Pick<SpeechHealth, 'pending' | 'running' | 'workers' | 'queue_timeouts'>;

export interface WorkersState {
  /** The board's line: the bottleneck and what to do, or how the workers are doing. */
  line: string;
  bottleneck: boolean;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

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

export class WorkersWatch {
  #last: WorkersHealth | undefined;

  /** The state after one look at `/health`; `undefined`: the gateway did not answer. */
  next(health: WorkersHealth | undefined): WorkersState {
    const last = this.#last;
    this.#last = health;
    if (!health)
      return { line: 'Speech workers: unknown (the capture host does not answer)', bottleneck: false };
    const waiting = health.pending > 0 && (last?.pending ?? 0) > 0;
    // A gateway restart resets its counters: only a rise on the same run counts.
    const timedOut = last !== undefined && health.queue_timeouts > last.queue_timeouts;
    const slots = plural(health.workers, 'decode slot');
    if (waiting || timedOut) {
      const lost = timedOut
        ? ` (${plural(health.queue_timeouts - last!.queue_timeouts, 'window')} timed out waiting)`
        : '';
      return {
        line:
          `Speech workers are the bottleneck: ${plural(health.pending, 'window')} waiting for ${slots}` +
          `${lost}; add workers (CAPTION_WORKERS) or move rooms`,
        bottleneck: true,
      };
    }
    return {
      line: `Speech workers: ${health.running} of ${slots} busy, ${plural(health.pending, 'window')} waiting`,
      bottleneck: false,
    };
  }
}
