/**
 * Two outputs replicas on one database and a private Redis: one holds the room's lease and sends;
 * SIGKILL it mid-stream and the other takes over within 15 s (the bound, with the
 * default lease settings); nothing is lost or sent twice at either platform.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import {
  type RedisServer,
  type StandIn,
  startRedisServer,
  startYouTubeStandIn,
  startZoomStandIn,
} from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { api, kill, ROOM, type Running, reading, startOutputs, until, words } from './helpers/index.js';
import {
  addDestination,
  publisherOnceReading,
  redisEnv,
  startRelayStack,
  stopAll,
  youtubeWords as wordsAt,
  zoomWords as zoomWordsAt,
} from './helpers/stack.js';

jest.setTimeout(180_000);

let redis: RedisServer;
let relay: Running;
let youtube: StandIn;
let zoom: StandIn;
const replicas: Running[] = [];
let writer: RelayPublisher | undefined;
let timer: NodeJS.Timeout | undefined;
const published: string[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  redis = await startRedisServer();
  youtube = await startYouTubeStandIn();
  zoom = await startZoomStandIn();
  const stack = await startRelayStack({ allowed: [youtube.port, zoom.port] });
  relay = stack.relay;
  env = {
    ...stack.env,
    ...redisEnv(redis.url),
    OUTPUTS_ZOOM_INTERVAL_MS: '1000',
  };
  replicas.push(await startOutputs(env), await startOutputs(env));
});

afterAll(async () => {
  clearInterval(timer);
  await stopAll(writer, [...replicas, relay], [youtube, zoom]);
  await redis?.stop();
});

const held = async (replica: Running) =>
  ((await api(replica.port, 'GET', '/health', '')).json as { leases: { held: number } }).leases.held;
const youtubeWords = () => wordsAt(youtube);
const zoomWords = () => zoomWordsAt(zoom);

test('one replica sends; when it dies the other takes over within 15 s, losing and repeating nothing', async () => {
  const [first] = replicas as [Running, Running];
  for (const [kind, url] of [
    ['youtube', youtube.url],
    ['zoom', zoom.url],
  ] as const)
    expect(await addDestination(first.port, { kind, url })).toBe(201);

  // Exactly one replica holds the room.
  await until(
    'a replica holds the lease',
    async () => (await held(replicas[0]!)) + (await held(replicas[1]!)) === 1,
  );
  const holder = (await held(replicas[0]!)) === 1 ? replicas[0]! : replicas[1]!;
  const other = holder === replicas[0] ? replicas[1]! : replicas[0]!;
  expect(await held(other)).toBe(0);

  writer = await publisherOnceReading(holder, relay);
  let n = 0;
  timer = setInterval(() => {
    n += 1;
    const text = `Replica caption ${n}.`;
    published.push(text);
    writer?.publish({ final: text, id: n, ln: 'en' });
  }, 250);
  await until('captions flow', () => youtube.accepted.length >= 3 && zoom.accepted.length >= 3);

  await kill(holder);
  const killedAt = Date.now();
  await until('the other replica sends to both platforms', () =>
    [youtube, zoom].every((standIn) => standIn.accepted.some((post) => post.at > killedAt)),
  );
  const takeoverMs =
    Math.max(...[youtube, zoom].map((s) => s.accepted.find((post) => post.at > killedAt)!.at)) - killedAt;
  console.log(`takeover: ${takeoverMs} ms after SIGKILL (bound 15000 ms)`);
  expect(takeoverMs).toBeLessThan(15_000);
  expect(await held(other)).toBe(1);
  expect(other.proc.logLines(/^room lease held; reading$/)).toHaveLength(1);

  await new Promise((resolve) => setTimeout(resolve, 1500));
  clearInterval(timer);
  await until(
    'every caption delivered',
    () => youtubeWords().length === words(published).length && zoomWords().length === words(published).length,
    30_000,
  );
  expect(youtube.violations).toEqual([]);
  expect(zoom.violations).toEqual([]);
  expect(youtubeWords()).toEqual(words(published));
  expect(zoomWords()).toEqual(words(published));

  // A clean shutdown (SIGTERM) releases the lease at once instead of letting it expire.
  const third = await startOutputs(env);
  replicas.push(third);
  other.proc.child.kill('SIGTERM');
  expect(await other.proc.exited).toBe(0);
  const client = new Redis(redis.url);
  const owner = await client.get(`${env.OUTPUTS_REDIS_PREFIX}lease:${ROOM}`);
  client.disconnect();
  expect(owner ?? '').not.toContain(`-${other.proc.child.pid}-`);
  expect(other.proc.logLines(/^room released$/)).toHaveLength(1);
  await reading(third.port);
  for (let i = 1; i <= 3; i++) {
    published.push(`After handover ${i}.`);
    writer.publish({ final: `After handover ${i}.`, id: `h${i}` });
  }
  await until('captions after the handover', () => youtubeWords().length === words(published).length);
  expect(youtube.violations).toEqual([]);
  expect(youtubeWords()).toEqual(words(published));
});
