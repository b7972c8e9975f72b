/**
 * Rooms made at runtime on the relay's rooms API reach the outputs service without a restart: a
 * new room's output room takes destinations and archives its captions within 2 s of its creation,
 * a removed room's reading stops. Real processes: the relay with a PGlite rooms store, outputs.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from '@jest/globals';
import type { CaptionRoom } from '@live-captions/protocol';
import { createPublisher, type RelayPublisher } from '@live-captions/relay-client/node';
import {
  api,
  createDatabase,
  freePort,
  kill,
  type Running,
  relayConfigFile,
  startOutputs,
  startRelay,
  until,
} from './helpers/index.js';

const API_KEY = 'outputs-rooms-test-key-0123456789abcdef';

let relay: Running | undefined;
let outputs: Running | undefined;
let writer: RelayPublisher | undefined;
afterAll(async () => {
  writer?.close();
  await kill(outputs);
  await kill(relay);
});

const relayApi = (method: string, path: string, body?: unknown) =>
  fetch(`http://127.0.0.1:${relay!.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const held = async () =>
  ((await api(outputs!.port, 'GET', '/health', '')).json as { leases: { held: number } }).leases.held;

test('a room created on the relay is served within 2 s, and dropped within 2 s once removed', async () => {
  const configPath = relayConfigFile();
  relay = await startRelay(configPath, await freePort(), undefined, {
    RELAY_DATA_DIR: mkdtempSync(join(tmpdir(), 'outputs-relay-rooms-')),
    CAPTION_API_KEY: API_KEY,
  });
  outputs = await startOutputs({
    CAPTION_RELAY_CONFIG: configPath,
    RELAY_URL: `ws://127.0.0.1:${relay.port}/ws`,
    DATABASE_URL: await createDatabase(),
    CAPTION_API_KEY: API_KEY,
  });
  expect(outputs.proc.logLines(/^relay rooms API read$/)).toHaveLength(1);

  const created = await relayApi('POST', '/rooms', { name: 'Hall B', id: 'hall-b' });
  expect(created.status).toBe(201);
  const { room } = (await created.json()) as { room: CaptionRoom };
  const started = Date.now();
  const path = `/rooms/${room.outputRoom}/destinations`;
  // The outputs API knows the new output room (its write token) without a restart or a SIGHUP.
  await until('the new room known', async () => {
    return (
      (await api(outputs!.port, 'POST', path, room.tokens.outputWrite, { kind: 'archive' })).status === 201
    );
  });
  expect(Date.now() - started).toBeLessThan(2000);
  await until('the new room read', async () => (await held()) === 1);
  expect(Date.now() - started).toBeLessThan(2000);

  writer = createPublisher({
    url: `ws://127.0.0.1:${relay.port}/ws`,
    room: room.outputRoom,
    token: room.tokens.outputWrite,
  });
  writer.publish({ final: 'Welcome to hall B.', id: 'c1' });
  const archive = `/rooms/${room.outputRoom}/archive`;
  await until('the caption archived', async () => {
    const answer = await api(outputs!.port, 'GET', archive, room.tokens.outputRead);
    return (answer.json as { sessions: { captions: number }[] }).sessions[0]?.captions === 1;
  });
  writer.close();
  writer = undefined;

  expect((await relayApi('DELETE', `/rooms/${room.id}`)).status).toBe(204);
  const removed = Date.now();
  await until('the removed room dropped', async () => (await held()) === 0);
  expect(Date.now() - removed).toBeLessThan(2000);
  expect((await api(outputs.port, 'GET', archive, room.tokens.outputRead)).status).toBe(401);
  // Its transcript outlives it: the operator (the service token) still lists and downloads it.
  const kept = await api(outputs.port, 'GET', archive, API_KEY);
  expect(kept.status).toBe(200);
  const session = (kept.json as { sessions: { id: string; captions: number }[] }).sessions[0]!;
  expect(session.captions).toBe(1);
  const file = await fetch(`http://127.0.0.1:${outputs.port}${archive}/${session.id}.txt`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  expect([file.status, (await file.text()).trim()]).toEqual([200, '[00:00:00] Welcome to hall B.']);
  expect(outputs.proc.logLines(/^room released$/).map((line) => line.room)).toEqual([room.outputRoom]);
  // The file's rooms stay served; no token in any line.
  expect(
    (
      await api(
        outputs.port,
        'GET',
        '/rooms/captions-output/destinations',
        'outputWrite_ddddddddddddddddddddddddddddd',
      )
    ).status,
  ).toBe(200);
  for (const token of Object.values(room.tokens)) expect(outputs.proc.output()).not.toContain(token);
  expect(outputs.proc.output()).not.toContain(API_KEY);
});
