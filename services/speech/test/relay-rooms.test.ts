/**
 * `GET /relay-config?room=<id>`: a caption room of the relay's rooms API in the RelaySettings shape,
 * against a real in-process relay with a PGlite rooms store; without `?room=` the relay-tokens.env
 * answer stays. Unknown room 404, bad id 400, relay unreachable or without the API 503.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createInProcessQueue } from '@live-captions/inference';
import type { CaptionRoom, RelaySettings } from '@live-captions/protocol';
import { createRelay, parseRelayConfig, type Relay, RoomsStore } from '@live-captions/relay';
import { freePort } from '@live-captions/test-services';
import request from 'supertest';
import { loadRelayTokens } from '../src/adapters/relay-tokens.js';
import { createApp } from '../src/app.js';
import { writeRelayTokens } from './helpers/access-fixture.js';
import { API_KEY, engineConfig, testConfig } from './helpers/gateway.js';

const AUTH = { Authorization: `Bearer ${API_KEY}` };
const queue = createInProcessQueue({ engine: engineConfig('tiny') });
const file = loadRelayTokens(writeRelayTokens());
const dataDir = mkdtempSync(join(tmpdir(), 'speech-relay-rooms-'));
const relayConfig = parseRelayConfig({
  origins: ['http://localhost:8081'],
  rooms: {
    lobby: {
      read: 'lobbyRead_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
      write: 'lobbyWrite_bbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    },
  },
});

let store: RoomsStore;
let relay: Relay;
let relayUrl: string;
let room: CaptionRoom;

beforeAll(async () => {
  store = await RoomsStore.open({ dataDir });
  relay = createRelay({ config: relayConfig, rooms: { store, apiKey: API_KEY } });
  relayUrl = `ws://127.0.0.1:${await relay.listen(0, '127.0.0.1')}/ws`;
  const created = await fetch(`${relayUrl.replace('ws:', 'http:').replace(/\/ws$/, '')}/rooms`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Main hall (Janson)' }),
  });
  room = ((await created.json()) as { room: CaptionRoom }).room;
}, 60_000);

afterAll(async () => {
  await relay.close();
  await store.close();
  await queue.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The gateway with the token, RELAY_URL `relayAt` and relay-tokens.env (`null`: no file). */
const gateway = (relayAt = relayUrl, relayFile: typeof file | null = file) =>
  createApp({
    queue,
    relay: relayFile ?? undefined,
    config: testConfig({ apiKey: API_KEY, relayUrl: relayAt }),
  }).app;

describe('GET /relay-config?room=', () => {
  it('answers the chosen caption room with the public relay address and links of relay-tokens.env', async () => {
    const res = await request(gateway()).get('/relay-config?room=main-hall-janson').set(AUTH).expect(200);
    expect(room.id).toBe('main-hall-janson');
    const body = res.body as RelaySettings;
    expect(body).toEqual({
      relayUrl: 'wss://relay.example/ws',
      site: 'https://ui.example/',
      sourceRoom: 'main-hall-janson',
      outputRoom: 'main-hall-janson-output',
      sourceReadToken: room.tokens.sourceRead,
      sourceWriteToken: room.tokens.sourceWrite,
      outputReadToken: room.tokens.outputRead,
      outputWriteToken: room.tokens.outputWrite,
      links: {
        editor: `https://ui.example/editor.html#relayUrl=wss%3A%2F%2Frelay.example%2Fws&sourceRoom=main-hall-janson&sourceReadToken=${room.tokens.sourceRead}&outputRoom=main-hall-janson-output&outputWriteToken=${room.tokens.outputWrite}`,
        overlay: `https://ui.example/overlay.html#relayUrl=wss%3A%2F%2Frelay.example%2Fws&room=main-hall-janson-output&relayReadToken=${room.tokens.outputRead}`,
      },
    });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('without relay-tokens.env: the relay address of RELAY_URL, no links', async () => {
    const res = await request(gateway(relayUrl, null)).get('/relay-config?room=main-hall-janson').set(AUTH);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ relayUrl, site: null, links: { editor: null, overlay: null } });
  });

  it('without ?room= the single pair of relay-tokens.env stays the answer', async () => {
    const res = await request(gateway()).get('/relay-config').set(AUTH).expect(200);
    expect(res.body).toMatchObject({
      sourceRoom: 'source',
      outputRoom: 'output',
      sourceReadToken: 'source-read',
    });
  });

  it('a room made or removed a moment ago is answered as the relay has it now', async () => {
    const app = gateway();
    const base = relayUrl.replace('ws:', 'http:').replace(/\/ws$/, '');
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    expect((await call('POST', '/rooms', { name: 'Room 2', id: 'room-2' })).status).toBe(201);
    await request(app).get('/relay-config?room=room-2').set(AUTH).expect(200);
    expect((await call('DELETE', '/rooms/room-2')).status).toBe(204);
    await request(app).get('/relay-config?room=room-2').set(AUTH).expect(404);
  });

  it('404 for an unknown room, 400 for a bad id, 401 without the token', async () => {
    const app = gateway();
    const unknown = await request(app).get('/relay-config?room=nowhere').set(AUTH).expect(404);
    expect(unknown.body.detail).toBe('No caption room "nowhere" on the relay');
    for (const bad of ['Main', 'a--b', 'x-output', '-a', 'a'.repeat(49), 'a%2Fb'])
      await request(app).get(`/relay-config?room=${bad}`).set(AUTH).expect(400);
    await request(app).get('/relay-config?room=a&room=b').set(AUTH).expect(400);
    await request(app).get('/relay-config?room=main-hall-janson').expect(401);
  });

  it('503 with a clear message when the relay is unreachable or has no rooms API', async () => {
    const down = await request(gateway(`ws://127.0.0.1:${await freePort()}/ws`))
      .get('/relay-config?room=main-hall-janson')
      .set(AUTH)
      .expect(503);
    expect(down.body.detail).toMatch(
      /^The relay's rooms are unavailable: relay unreachable at http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(down.headers['retry-after']).toBe('1');

    const plain = createRelay({ config: relayConfig });
    const port = await plain.listen(0, '127.0.0.1');
    try {
      const none = await request(gateway(`ws://127.0.0.1:${port}/ws`))
        .get('/relay-config?room=main-hall-janson')
        .set(AUTH)
        .expect(503);
      expect(none.body.detail).toMatch(/has no rooms API/);
    } finally {
      await plain.close();
    }
  });

  it('404 without CAPTION_API_KEY, as without ?room=', async () => {
    const app = createApp({ queue, relay: file, config: testConfig({ relayUrl }) }).app;
    await request(app).get('/relay-config?room=main-hall-janson').expect(404);
  });
});
