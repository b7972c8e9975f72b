/**
 * PostgreSQL (a private cluster) stops mid-stream: captions read meanwhile cannot be stored, so
 * the reader reopens from the stored cursor once it is back and the relay replays them; every
 * caption still arrives once, in order.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { type PostgresCluster, startPostgresCluster } from '@live-captions/test-services';
import { until, words } from './helpers/index.js';
import { startYouTubeDelivery, type YouTubeDelivery, youtubeWords } from './helpers/stack.js';

jest.setTimeout(150_000);

let cluster: PostgresCluster;
let stack: YouTubeDelivery;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  stack = await startYouTubeDelivery('Stored caption', {
    databaseUrl: cluster.url(),
    env: { OUTPUTS_RETRY_MAX_MS: '1000' },
  });
});

afterAll(async () => {
  await stack?.stop();
  await cluster?.destroy();
});

test('captions read while PostgreSQL is down are read again from the cursor, once', async () => {
  const { outputs, youtube, published, publish, delivered } = stack;
  await stack.deliverFirst();

  await cluster.stop();
  publish(6, 10);
  await until('the failed write is logged', () => outputs.proc.logLines(/^database write failed/).length > 0);
  await cluster.start();
  publish(11, 12);
  await until('every caption delivered', delivered, 60_000);
  expect(youtube.violations).toEqual([]);
  expect(youtubeWords(youtube)).toEqual(words(published));
});
