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
  youtubeBlocks,
} from '@live-captions/test-services';
import {
  api,
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
  const configPath = relayConfigFile();
  relay = await startRelay(configPath, await freePort());
  outputs = await startOutputs({
    CAPTION_RELAY_CONFIG: configPath,
    RELAY_URL: `ws://127.0.0.1:${relay.port}/ws`,
    DATABASE_URL: cluster.url(),
    OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
    OUTPUTS_RETRY_MAX_MS: '1000',
    OUTPUTS_ALLOWED_HOSTS: `127.0.0.1:${youtube.port}`,
  });
});

afterAll(async () => {
  writer?.close();
  await kill(outputs);
  await kill(relay);
  await youtube?.close();
  await cluster?.destroy();
});

const youtubeWords = () =>
  youtube.accepted.flatMap((post) =>
    youtubeBlocks(post.body).flatMap((block) => block.lines.join(' ').split(' ')),
  );
function publish(from: number, to: number) {
  for (let n = from; n <= to; n++) {
    published.push(`Stored caption ${n}.`);
    writer?.publish({ final: `Stored caption ${n}.`, id: n });
  }
}

test('captions read while PostgreSQL is down are read again from the cursor, once', async () => {
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

  await cluster.stop();
  publish(6, 10);
  await until('the failed write is logged', () => outputs.proc.logLines(/^database write failed/).length > 0);
  await cluster.start();
  publish(11, 12);
  await until('every caption delivered', () => youtubeWords().length === words(published).length, 60_000);
  expect(youtube.violations).toEqual([]);
  expect(youtubeWords()).toEqual(words(published));
});
