import type { InferenceJob, InferenceResult } from '@live-captions/protocol';
import type { ConnectionState } from '@live-captions/redis';
import type { Logger } from '@live-captions/runtime';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { keysFor } from './keys.js';
import type { PendingRequests } from './pending.js';

/**
 * The gateway's side of the queue as its units see it (enqueue, the start and request deadlines,
 * the reconcile pass): one object, so that each unit is a plain function that a test can run on
 * its own against a real Redis, and `createRedisQueue` is only their wiring.
 */
export interface Producer {
  /** The fail-fast connection: audio values, heartbeat reads. */
  readonly redis: Redis;
  readonly queue: Queue<InferenceJob, InferenceResult>;
  readonly keys: ReturnType<typeof keysFor>;
  /** The requests not answered yet, by their current job id. */
  readonly pending: PendingRequests;
  /** `redis`'s state, followed from its events. */
  readonly link: ConnectionState;
  readonly logger?: Logger | undefined;
}
