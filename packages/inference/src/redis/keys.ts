/** Redis key layout shared by the BullMQ producer (gateway) and the workers. */
export function keysFor(queueName: string) {
  const base = `captions:${queueName}`;
  return {
    /** Binary float32 audio of one job, deleted when the job starts. */
    audio: (jobId: string) => `${base}:audio:${jobId}`,
    /** One JSON WorkerStatus per live worker, expiring unless its heartbeat renews it. */
    worker: (workerId: string) => `${base}:worker:${workerId}`,
    workerPattern: `${base}:worker:*`,
  };
}

/** How often a worker renews its status, and how long the status outlives a silent worker. */
export const HEARTBEAT_MS = 2_000;
export const HEARTBEAT_TTL_MS = 6_000;

/**
 * A job's lock: renewed by its worker every half of it, so a dead worker's job is noticed after
 * at most JOB_LOCK_MS + STALLED_CHECK_MS, and decoded again by a live worker.
 */
export const JOB_LOCK_MS = 8_000;
export const STALLED_CHECK_MS = 4_000;
