import { type WorkerStatus, workerStatusSchema } from '@live-captions/protocol';
import { Redis } from 'ioredis';
import { keysFor } from './keys.js';

export interface HeartbeatCheck {
  redisUrl: string;
  queueName: string;
  workerId: string;
  /** Connecting and asking together may take this long; then the check fails. */
  timeoutMs: number;
}

/**
 * Whether worker `workerId`'s heartbeat key lives in Redis (see keys.ts): true from the moment
 * the worker has loaded and warmed up its model until a few seconds after it stops. One
 * connection, no retries and no offline queue: a health check must answer within its timeout.
 */
export async function workerHeartbeatLives(check: HeartbeatCheck): Promise<boolean> {
  const redis = new Redis(check.redisUrl, {
    lazyConnect: true,
    // An unroutable host; a server that connects and then says nothing meets the race below.
    connectTimeout: check.timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // connect() rejects with a bare "Connection is closed."; the cause is in the 'error' event.
  let connectionError: Error | undefined;
  redis.on('error', (error: Error) => {
    connectionError ??= error;
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Redis did not answer within ${check.timeoutMs / 1000} s`)),
      check.timeoutMs,
    );
  });
  try {
    const asked = (async () => {
      await redis.connect();
      return (await redis.exists(keysFor(check.queueName).worker(check.workerId))) === 1;
    })();
    // after a timeout, the disconnect below rejects it: nobody is waiting for that any more
    asked.catch(() => undefined);
    return await Promise.race([asked, timeout]);
  } catch (error) {
    if (connectionError) throw new Error(`Redis connection failed (${connectionError.message})`);
    throw error;
  } finally {
    clearTimeout(timer);
    redis.disconnect();
  }
}

/**
 * The statuses the live workers announce (heartbeat keys), oldest worker first. An announcement
 * that is not a status (another version's, a corrupted key) is left out: that worker is not
 * counted until it announces one.
 */
export async function readLiveWorkers(redis: Redis, queueName: string): Promise<WorkerStatus[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', keysFor(queueName).workerPattern, 'COUNT', 100);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  if (found.length === 0) return [];
  const values = await redis.mget(...found);
  return values
    .flatMap((value) => {
      const status = value === null ? undefined : workerStatusSchema.safeParse(parseJson(value));
      return status?.success ? [status.data] : [];
    })
    .sort((a, b) => a.startedAt - b.startedAt);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
