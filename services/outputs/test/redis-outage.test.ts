/**
 * Fencing: when Redis (a private instance) dies, the replica can no longer prove its lease, so it
 * stops sending before another replica could be given the room; when Redis is back it takes the
 * lease again and delivers what waited, from its stored cursor, once.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { type RedisServer, startRedisServer } from '@live-captions/test-services';
import { api, until, words } from './helpers/index.js';
import { redisEnv, startYouTubeDelivery, type YouTubeDelivery, youtubeWords } from './helpers/stack.js';

jest.setTimeout(120_000);

let redis: RedisServer;
let stack: YouTubeDelivery;

beforeAll(async () => {
  redis = await startRedisServer();
  stack = await startYouTubeDelivery('Fenced caption', {
    env: { ...redisEnv(redis.url), OUTPUTS_LEASE_MS: '3000' },
  });
});

afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
});

type Health = { redis: string; leases: { held: number } };
const health = async () => (await api(stack.outputs.port, 'GET', '/health', '')).json as Health;

test('no lease, no sending; the lease back, everything delivered once', async () => {
  const { youtube, published, publish, delivered } = stack;
  await stack.deliverFirst();

  await redis.kill();
  await until('lease lapsed', async () => {
    const now = await health();
    return now.redis === 'down' && now.leases.held === 0;
  });
  const before = youtube.accepted.length;
  publish(6, 10);
  // Longer than the lease: a replica that still sent now could overlap with another one.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  expect(youtube.accepted.length).toBe(before);

  await redis.start();
  await until('lease held again', async () => (await health()).leases.held === 1);
  await until('every caption delivered', delivered);
  expect(youtube.violations).toEqual([]);
  expect(youtubeWords(youtube)).toEqual(words(published));
});
