/**
 * The board's feeds (lib/board-feeds.ts) over real HTTP: a relay answering `/activity/rooms`, a
 * gateway answering `/health` with the token, an outputs address nobody listens on and a site
 * without a sources service. Each part stands alone: the ones that answer are read, the one that
 * does not is unknown (and asked once, not once per room), the missing sources service is none.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { CaptionRoom } from '@live-captions/protocol';
import { readBoardFeeds } from '../src/browser/lib/board-feeds.js';

const TOKEN = 'service-token-0123456789abcdef';
const seen: string[] = [];
let server: Server;
let base: string;
let closedPort: number;

const activity = {
  rooms: [
    {
      id: 'main-hall',
      source: { publishers: 2, readers: 1, captionsLastMinute: 4, lastCaptionAt: null, languages: ['en'] },
      output: { publishers: 1, readers: 3, captionsLastMinute: 4, lastCaptionAt: null, languages: ['en'] },
    },
  ],
};
const health = { ready: true, pending: 2, running: 1, workers: 1, queue_timeouts: 0 };

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.url} ${req.headers.authorization === `Bearer ${TOKEN}` ? 'token' : 'none'}`);
    // `/plain/health`: an older gateway's or a proxy's health, without the decode figures.
    const answers: Record<string, unknown> = {
      '/activity/rooms': activity,
      '/health': health,
      '/plain/health': { ready: true },
    };
    const body = answers[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { error: { message: 'No such thing' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  // A port that was free a moment ago: nobody answers there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const room = (id: string) =>
  ({
    id,
    name: id,
    sourceRoom: id,
    outputRoom: `${id}-output`,
    kind: 'api',
    tokens: { sourceRead: 'a', sourceWrite: 'b', outputRead: 'c', outputWrite: 'd' },
    createdAt: null,
    updatedAt: null,
    schedule: null,
  }) satisfies CaptionRoom;

test('each part on its own: answered, unreachable (asked once) or not configured', async () => {
  let outputsAsked = 0;
  const counting: typeof fetch = (input, init) => {
    if (String(input).includes(`:${closedPort}/`)) outputsAsked += 1;
    return fetch(input, init);
  };
  const feeds = await readBoardFeeds(
    { token: TOKEN, relayApiUrl: base, captureUrl: base, outputsUrl: `http://127.0.0.1:${closedPort}/` },
    [room('main-hall'), room('room-b'), room('room-c')],
    true,
    counting,
  );
  expect(feeds.activity?.get('main-hall')?.source.publishers).toBe(2);
  expect(feeds.workers).toEqual(health);
  expect(feeds.sources).toEqual(new Map());
  expect(feeds.outputs).toEqual(new Map());
  // The first room's two requests found nobody: the other rooms were not asked.
  expect(outputsAsked).toBe(2);
  expect(seen.sort()).toEqual(['/activity/rooms token', '/health token']);
});

test('a relay that refuses and a gateway that answers without its figures: both unknown', async () => {
  const feeds = await readBoardFeeds(
    { token: TOKEN, relayApiUrl: `${base}elsewhere/`, captureUrl: `${base}plain/` },
    [],
    false,
  );
  expect(feeds.activity).toBeUndefined();
  expect(feeds.workers).toBeUndefined();
  expect(feeds.outputs).toBeUndefined();
});
