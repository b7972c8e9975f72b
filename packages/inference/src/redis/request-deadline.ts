import { InferenceError } from '../queue.js';
import type { PendingRequest } from './pending.js';
import type { Producer } from './producer.js';

/**
 * The gateway's promise to its callers: whatever Redis does (away, lost the job, a worker that
 * never reports), a request is answered by `entry.deadline`, as `unavailable`. It touches only
 * the gateway's own state, never Redis, so it holds while Redis is away. The timer goes on the
 * entry's list, stopped when the request is answered.
 */
export function armRequestDeadline({ pending, link, logger }: Producer, entry: PendingRequest): void {
  const timer = setTimeout(
    () => {
      if (!pending.waiting(entry)) return;
      pending.settle(entry);
      logger?.warn(
        { jobId: entry.jobId, correlationId: entry.request.correlationId, redis: link.up ? 'up' : 'down' },
        'request deadline passed without a result',
      );
      entry.reject(new InferenceError('unavailable', 'no result before the request deadline'));
    },
    Math.max(0, entry.deadline - Date.now()),
  );
  entry.timers.push(timer);
}
