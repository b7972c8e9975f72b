/**
 * Caption rooms with several relay nodes on one PostgreSQL (a private cluster on a free port,
 * since this suite stops it): a room made on one node is served by the other within the 2 s the
 * issue allows, a removal closes the other node's sockets, and a PostgreSQL outage keeps every
 * room served while the API answers 503.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { CaptionRoom } from '@live-captions/protocol';
import { type PostgresCluster, startPostgresCluster } from '@live-captions/test-services';
import { RoomsStore } from '../src/adapters/rooms-store.js';
import { createRelay, parseRelayConfig, type Relay } from '../src/app.js';
import { Client, configFile, until } from './helpers.js';

const API_KEY = 'rooms-replicas-api-key-0123456789abcd';

interface Node {
  relay: Relay;
  store: RoomsStore;
  base: string;
  ws: string;
}

let cluster: PostgresCluster;
let dir: string;
const nodes: Node[] = [];

async function startNode(): Promise<Node> {
  const store = await RoomsStore.open({ url: cluster.url('postgres'), dataDir: dir });
  const relay = createRelay({
    config: parseRelayConfig(configFile()),
    rooms: { store, apiKey: API_KEY, pollMs: 500 },
  });
  const port = await relay.listen(0, '127.0.0.1');
  const node = { relay, store, base: `http://127.0.0.1:${port}`, ws: `ws://127.0.0.1:${port}/ws` };
  nodes.push(node);
  return node;
}

async function api(node: Node, method: string, path: string, body?: unknown) {
  const res = await fetch(`${node.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const served = (node: Node, room: string) => node.relay.hub.activity(room) !== undefined;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  dir = mkdtempSync(join(tmpdir(), 'relay-replicas-'));
}, 60_000);

afterAll(async () => {
  for (const node of nodes) {
    await node.relay.close();
    await node.store.close();
  }
  await cluster?.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('caption rooms on two relay nodes', () => {
  let a: Node;
  let b: Node;
  let room: CaptionRoom;

  it('serves a room made on one node on the other within 2 s', async () => {
    a = await startNode();
    b = await startNode();
    room = (await api(a, 'POST', '/rooms', { name: 'Janson' })).json.room;
    // Served at once on the node that made it.
    expect(served(a, room.sourceRoom)).toBe(true);
    const started = Date.now();
    await until(() => served(b, room.sourceRoom) && served(b, room.outputRoom), 2000);
    expect(Date.now() - started).toBeLessThan(2000);
    const reader = await Client.join(b.ws, room.outputRoom, 'read', room.tokens.outputRead);
    expect(reader.frames[0]).toMatchObject({ joined: room.outputRoom });
    // The other node lists it the same, and answers the same ETag.
    const [fromA, fromB] = [await api(a, 'GET', '/rooms'), await api(b, 'GET', '/rooms')];
    expect(fromB.json).toEqual(fromA.json);

    // Rename on B, removal on A: B's socket is closed within 2 s.
    expect((await api(b, 'PATCH', `/rooms/${room.id}`, { name: 'Janson (U)' })).json.room.name).toBe(
      'Janson (U)',
    );
    expect((await api(a, 'DELETE', `/rooms/${room.id}`)).status).toBe(204);
    const closed = await Promise.race([
      reader.closed,
      new Promise((resolve) => setTimeout(() => resolve('still open'), 2000)),
    ]);
    expect(closed).toEqual({ code: 1008, reason: 'Room removed' });
  });

  it('keeps serving its rooms through a PostgreSQL outage, answers 503 meanwhile, and catches up', async () => {
    const kept = (await api(a, 'POST', '/rooms', { name: 'K.1.105' })).json.room as CaptionRoom;
    await until(() => served(b, kept.sourceRoom), 2000);
    await cluster.stop();
    const refused = await api(a, 'POST', '/rooms', { name: 'During the outage' });
    expect(refused.status).toBe(503);
    expect(refused.json.error.message).toBe('Room storage unavailable, try again');
    // Both nodes still serve the room, and a writer joins it.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const writer = await Client.join(b.ws, kept.sourceRoom, 'write', kept.tokens.sourceWrite);
    expect(writer.frames[0]).toMatchObject({ joined: kept.sourceRoom });
    const health = await (await fetch(`${b.base}/health`)).json();
    expect(health).toMatchObject({ roomsStore: 'down' });
    expect((await api(a, 'GET', '/rooms')).json.rooms.map((r: CaptionRoom) => r.id)).toContain(kept.id);

    await cluster.start();
    // Writes are taken again once PostgreSQL answers; the other node learns of them by its poll.
    let made: CaptionRoom | undefined;
    const deadline = Date.now() + 20_000;
    while (!made && Date.now() < deadline) {
      const answer = await api(a, 'POST', '/rooms', { name: 'After the outage' });
      if (answer.status === 201) made = answer.json.room;
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(made).toBeDefined();
    await until(() => served(b, made!.sourceRoom), 3000);
    const healthAfter = await (await fetch(`${b.base}/health`)).json();
    expect(healthAfter).toMatchObject({ roomsStore: 'ok' });
    writer.close();
  }, 60_000);
});
