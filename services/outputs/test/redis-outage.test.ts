/**
 * Fencing: when Redis (a private instance) dies, the replica can no longer prove its lease, so it
 * stops sending before another replica could be given the room; when Redis is back it takes the
 * lease again and delivers what waited, from its stored cursor, once.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import {
  type RedisServer,
  type StandIn,
  startRedisServer,
  startYouTubeStandIn,
  youtubeBlocks,
} from '@live-captions/test-services';
import {
  api,
  createDatabase,
  freePort,
  kill,
  publisher,
  ROOM,
  type Running,
  reading,
  relayConfigFile,
  startOutputs,
  startRelay,
  TOKENS,
  until,
  words,
} from './helpers.js';

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
  const configPath = relayConfigFile();
  relay = await startRelay(configPath, await freePort());
  outputs = await startOutputs({
    CAPTION_RELAY_CONFIG: configPath,
    RELAY_URL: `ws://127.0.0.1:${relay.port}/ws`,
    DATABASE_URL: await createDatabase(),
    REDIS_URL: redis.url,
    OUTPUTS_REDIS_PREFIX: `outputs-${randomBytes(4).toString('hex')}:`,
    OUTPUTS_LEASE_MS: '3000',
    OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
    OUTPUTS_ALLOWED_HOSTS: `127.0.0.1:${youtube.port}`,
  });
});

afterAll(async () => {
  writer?.close();
  await kill(outputs);
  await kill(relay);
  await youtube?.close();
  await redis?.stop();
});

type Health = { redis: string; leases: { held: number } };
const health = async () => (await api(outputs.port, 'GET', '/health', '')).json as Health;
const youtubeWords = () =>
  youtube.accepted.flatMap((post) =>
    youtubeBlocks(post.body).flatMap((block) => block.lines.join(' ').split(' ')),
  );
function publish(from: number, to: number) {
  for (let n = from; n <= to; n++) {
    published.push(`Fenced caption ${n}.`);
    writer?.publish({ final: `Fenced caption ${n}.`, id: n });
  }
}

test('no lease, no sending; the lease back, everything delivered once', async () => {
  expect(
    (
      await api(outputs.port, 'POST', `/rooms/${ROOM}/destinations`, TOKENS.write, {
        kind: 'youtube',
        url: youtube.url,
      })
    ).status,
  ).toBe(201);
  await reading(outputs.port);
  writer = publisher(relay.port);
  publish(1, 5);
  await until('first captions delivered', () => youtubeWords().length === words(published).length);

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
  await until('every caption delivered', () => youtubeWords().length === words(published).length);
  expect(youtube.violations).toEqual([]);
  expect(youtubeWords()).toEqual(words(published));
});
