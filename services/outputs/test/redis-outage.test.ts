/**
 * Fencing: when Redis (a private instance) dies, the replica can no longer prove its lease, so it
 * stops sending before another replica could be given the room; when Redis is back it takes the
 * lease again and delivers what waited, from its stored cursor, once.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import {
  type RedisServer,
  type StandIn,
  startRedisServer,
  startYouTubeStandIn,
} from '@live-captions/test-services';
import { api, type Running, startOutputs, until, words } from './helpers/index.js';
import {
  addDestination,
  publisherOnceReading,
  publishNumbered,
  redisEnv,
  startRelayStack,
  stopAll,
  youtubeWords,
} from './helpers/stack.js';

jest.setTimeout(120_000);

let redis: RedisServer;
let relay: Running;
let outputs: Running;
let youtube: StandIn;
let writer: RelayPublisher | undefined;
const published: string[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  youtube = await startYouTubeStandIn();
  const stack = await startRelayStack({ allowed: [youtube.port] });
  relay = stack.relay;
  outputs = await startOutputs({
    ...stack.env,
    ...redisEnv(redis.url),
    OUTPUTS_LEASE_MS: '3000',
    OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
  });
});

afterAll(async () => {
  await stopAll(writer, [outputs, relay], [youtube]);
  await redis?.stop();
});

type Health = { redis: string; leases: { held: number } };
const health = async () => (await api(outputs.port, 'GET', '/health', '')).json as Health;
const delivered = () => youtubeWords(youtube).length === words(published).length;
const publish = (from: number, to: number) => publishNumbered(writer, published, 'Fenced caption', from, to);

test('no lease, no sending; the lease back, everything delivered once', async () => {
  expect(await addDestination(outputs.port, { kind: 'youtube', url: youtube.url })).toBe(201);
  writer = await publisherOnceReading(outputs, relay);
  publish(1, 5);
  await until('first captions delivered', delivered);

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
