import type { Logger } from '@live-captions/runtime';
import type { Redis, RedisOptions } from 'ioredis';

/**
 * Reconnect quickly (100 ms, growing to 1 s): an outage is noticed through connection events,
 * and the first attempt after Redis is back should not wait for a long back-off.
 */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 1_000);

/**
 * Options for connections that issue plain commands (the gateway's producer side): a command on a
 * closed connection fails at once instead of waiting in ioredis's offline queue, and a command cut
 * by a disconnect is not replayed, so a caller can answer 503 within a second.
 */
export const FAIL_FAST: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  retryStrategy,
  connectTimeout: 2_000,
};

/** Options for BullMQ's blocking connections (workers, queue events): they must wait and retry. */
export const BLOCKING: RedisOptions = { maxRetriesPerRequest: null, retryStrategy, connectTimeout: 2_000 };

/** A BullMQ `connection`: BullMQ (unlike ioredis's option object) takes the URL as `url`. */
export const bullConnection = (url: string, options: RedisOptions): RedisOptions & { url: string } => ({
  ...options,
  url,
});

export interface ConnectionState {
  /** True between `ready` and the next `close`. */
  readonly up: boolean;
  /** The last connection error (never a command's), for health reports. */
  readonly reason: string | undefined;
}

/**
 * Follows one ioredis connection and logs one line per state change ("lost", "restored"), never
 * one per reconnect attempt. `onChange` runs on each change after the first `ready`.
 */
export function watchConnection(
  client: Redis,
  options: { logger?: Logger | undefined; name: string; onChange?: (up: boolean) => void },
): ConnectionState {
  const { logger, name } = options;
  let up = false;
  let everUp = false;
  let reason: string | undefined;
  let lostAt = 0;

  client.on('ready', () => {
    const wasDown = everUp && !up;
    up = true;
    everUp = true;
    reason = undefined;
    if (wasDown) {
      logger?.info({ connection: name, downMs: Date.now() - lostAt }, 'redis connection restored');
      options.onChange?.(true);
    }
  });
  client.on('close', () => {
    if (!up) return;
    up = false;
    lostAt = Date.now();
    logger?.warn({ connection: name, reason: reason ?? 'connection closed' }, 'redis connection lost');
    options.onChange?.(false);
  });
  // Without a listener ioredis prints "Unhandled error event" per attempt; the reason is kept
  // for the next state line and for health instead.
  client.on('error', (error: Error) => {
    reason = error.message || (error as NodeJS.ErrnoException).code || 'connection error';
  });

  return {
    get up() {
      return up;
    },
    get reason() {
      return reason;
    },
  };
}

const CONNECTION_ERRORS =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|Connection is closed|Stream isn't writeable|max retries per request/;

/** A failure of the connection itself (the command may or may not have reached Redis). */
export function isConnectionError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return CONNECTION_ERRORS.test(`${String(code ?? '')} ${String(message ?? error)}`);
}

/**
 * For BullMQ objects (Queue, QueueEvents, Worker): their connection errors repeat once per
 * reconnect attempt and are already told by the watched client's state lines, so only other
 * errors are logged. (An 'error' event without a listener would throw.)
 */
export function logOtherErrors(
  emitter: { on(event: 'error', listener: (error: Error) => void): unknown },
  logger: Logger | undefined,
  name: string,
): void {
  const lostJobs = new Set<string>();
  emitter.on('error', (error: Error) => {
    if (isConnectionError(error)) return;
    // A job that Redis lost (a restart without persistence) while a worker decoded it: the
    // worker cannot report it, and the gateway submits it again. Said once per job.
    const lost = /Missing key for job ([\w-]+)/.exec(error.message);
    if (lost?.[1]) {
      if (!lostJobs.has(lost[1]))
        logger?.warn({ connection: name, jobId: lost[1] }, 'job lost by Redis during its decode');
      lostJobs.add(lost[1]);
      return;
    }
    logger?.warn({ connection: name, err: error }, 'redis error');
  });
}

/**
 * Waits for `closing` at most `ms`: BullMQ's close and disconnect wait for a connection that, with
 * Redis away, may never come back, and a process must still stop.
 */
export async function settleWithin(closing: Promise<unknown>, ms = 2_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    closing.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
