/**
 * A listed host that answers with a redirect (to an internal address, here a server nobody
 * listed) must not make the service follow it: the destination goes `failing` with a message
 * that carries neither the URL nor its query, and the redirect's target is never called.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import { readRelayRooms } from '@live-captions/relay-client/node';
import { createLogger } from '@live-captions/runtime';
import { logCapture } from '@live-captions/test-services';
import request from 'supertest';
import { createOutputs, type Outputs } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { kill, publisher, ROOM, type Running, TOKENS, until } from './helpers/index.js';
import { startRelayStack } from './helpers/stack.js';

jest.setTimeout(60_000);

const SIGNATURE = 'SIGredirect0123456789abcdef';
const logs = logCapture();
let relay: Running;
let outputs: Outputs;
let writer: RelayPublisher | undefined;
let internalHits = 0;
const servers: Server[] = [];

async function listen(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

beforeAll(async () => {
  const internal = await listen((_req, res) => {
    internalHits += 1;
    res.end('secret internal answer');
  });
  const redirecting = await listen((_req, res) => {
    res.writeHead(307, { Location: `http://127.0.0.1:${internal}/latest/meta-data` }).end();
  });
  const stack = await startRelayStack({ allowed: [redirecting] });
  relay = stack.relay;
  const config = loadConfig({ ...stack.env, OUTPUTS_YOUTUBE_INTERVAL_MS: '100' });
  const rooms = readRelayRooms(stack.configPath);
  outputs = await createOutputs(
    config,
    createLogger('outputs', { level: 'debug' }, logs.stream),
    () => rooms,
  );
  const added = await request(outputs.app)
    .post(`/rooms/${ROOM}/destinations`)
    .set('Authorization', `Bearer ${TOKENS.write}`)
    .send({
      kind: 'youtube',
      url: `http://127.0.0.1:${redirecting}/closedcaption?id=abcd&signature=${SIGNATURE}`,
    });
  expect(added.status).toBe(201);
});

afterAll(async () => {
  writer?.close();
  await outputs?.close();
  await kill(relay);
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

test('a redirect is refused, reported without the URL, and never followed', async () => {
  await until('outputs reads the room', () => outputs.supervisor.roomState(ROOM) === 'joined');
  writer = publisher(relay.port);
  writer.publish({ final: 'Nobody may read this elsewhere.', id: 1 });
  let view: { state: string; lastError: { message: string } | null; behind: number } | undefined;
  await until('the destination is failing', async () => {
    const res = await request(outputs.app)
      .get(`/rooms/${ROOM}/destinations`)
      .set('Authorization', `Bearer ${TOKENS.write}`);
    view = res.body.destinations[0];
    return view?.state === 'failing';
  });
  expect(view?.lastError?.message).toBe('HTTP 307: redirect refused');
  expect(view?.behind).toBe(1);
  expect(internalHits).toBe(0);
  const text = logs.text();
  expect(text).toContain('destination failing');
  expect(text).not.toContain(SIGNATURE);
  expect(text).not.toContain('closedcaption?');
  expect(text).not.toContain('Nobody may read');
});
