/**
 * PostgreSQL (a private cluster) stops mid-stream: captions read meanwhile cannot be stored, so
 * the reader reopens from the stored cursor once it is back and the relay replays them; every
 * caption still arrives once, in order.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import {
  type PostgresCluster,
  type StandIn,
  startPostgresCluster,
  startYouTubeStandIn,
} from '@live-captions/test-services';
import { type Running, startOutputs, until, words } from './helpers/index.js';
import {
  addDestination,
  publisherOnceReading,
  publishNumbered,
  startRelayStack,
  stopAll,
  youtubeWords,
} from './helpers/stack.js';

jest.setTimeout(150_000);

let cluster: PostgresCluster;
let relay: Running;
let outputs: Running;
let youtube: StandIn;
let writer: RelayPublisher | undefined;
const published: string[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  youtube = await startYouTubeStandIn();
  const stack = await startRelayStack({ allowed: [youtube.port], databaseUrl: cluster.url() });
  relay = stack.relay;
  outputs = await startOutputs({
    ...stack.env,
    OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
    OUTPUTS_RETRY_MAX_MS: '1000',
  });
});

afterAll(async () => {
  await stopAll(writer, [outputs, relay], [youtube]);
  await cluster?.destroy();
});

const delivered = () => youtubeWords(youtube).length === words(published).length;
const publish = (from: number, to: number) => publishNumbered(writer, published, 'Stored caption', from, to);

test('captions read while PostgreSQL is down are read again from the cursor, once', async () => {
  expect(await addDestination(outputs.port, { kind: 'youtube', url: youtube.url })).toBe(201);
  writer = await publisherOnceReading(outputs, relay);
  publish(1, 5);
  await until('first captions delivered', delivered);

  await cluster.stop();
  publish(6, 10);
  await until('the failed write is logged', () => outputs.proc.logLines(/^database write failed/).length > 0);
  await cluster.start();
  publish(11, 12);
  await until('every caption delivered', delivered, 60_000);
  expect(youtube.violations).toEqual([]);
  expect(youtubeWords(youtube)).toEqual(words(published));
});
