import type { Redis } from 'ioredis';

/**
 * Jobs of a BullMQ queue that wait to start, read from Redis as a test or bench sees them: the
 * `wait` list, and the `prioritized` set where BullMQ keeps jobs with a priority (the gateway
 * gives every job one, for fairness across caption rooms).
 */
export async function queuedJobs(redis: Redis, queueName: string): Promise<number> {
  const [waiting, prioritized] = await Promise.all([
    redis.llen(`bull:${queueName}:wait`),
    redis.zcard(`bull:${queueName}:prioritized`),
  ]);
  return waiting + prioritized;
}
