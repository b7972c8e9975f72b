/**
 * How many replicas are alive (for the capacity rule: SOURCES_MAX_PER_NODE on each): each one
 * stamps itself in a Redis sorted set every check; one silent for three lease times is gone.
 * Without Redis there is one node, this one.
 */
import { Redis } from 'ioredis';

export interface Nodes {
  beat(): Promise<void>;
  count(): Promise<number>;
  close(): Promise<void>;
}

export const singleNode = (): Nodes => ({
  beat: async () => undefined,
  count: async () => 1,
  close: async () => undefined,
});

export function redisNodes(options: { url: string; prefix: string; owner: string; ttlMs: number }): Nodes {
  const redis = new Redis(options.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  redis.on('error', () => undefined);
  const key = `${options.prefix}nodes`;
  return {
    async beat() {
      const now = Date.now();
      await redis
        .multi()
        .zadd(key, now, options.owner)
        .zremrangebyscore(key, 0, now - 3 * options.ttlMs)
        .exec()
        .catch(() => undefined);
    },
    async count() {
      try {
        return Math.max(1, await redis.zcount(key, Date.now() - 3 * options.ttlMs, '+inf'));
      } catch {
        return 1;
      }
    },
    async close() {
      await redis.zrem(key, options.owner).catch(() => undefined);
      redis.disconnect();
    },
  };
}
