/**
 * Rooms made at runtime on the relay's rooms API reach the sources service without a restart: a
 * new room takes sources within 2 s of its creation, a removed room's sources stop within 2 s and
 * say why. Real processes: the relay with a PGlite rooms store, the sources service (no gateway:
 * the SRT push source waits for an encoder that never comes).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, jest, test } from '@jest/globals';
import type { CaptionRoom } from '@live-captions/protocol';
import { freePort, killAll, type ServiceProcess, startServiceProcess } from '@live-captions/test-services';
import { API_KEY, api, ROOM, root, TOKENS, until } from './helpers/stack.js';

jest.setTimeout(180_000);

const started: ServiceProcess[] = [];
afterAll(() => killAll(started));

async function portOf(proc: ServiceProcess, message: RegExp): Promise<number> {
  await until(
    `${message} in the log:\n${proc.output().slice(-3000)}`,
    () => proc.logLines(message).length > 0,
    90_000,
  );
  return Number(proc.logLines(message)[0]?.port);
}

test('a room created on the relay takes sources within 2 s; removed, its sources stop within 2 s', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sources-rooms-'));
  const relayConfig = join(dir, 'relay.private.json');
  writeFileSync(
    relayConfig,
    JSON.stringify({ origins: ['http://localhost:8081'], rooms: { [ROOM]: TOKENS } }),
  );
  const relay = startServiceProcess(join(root, 'services/relay/src/index.ts'), {
    CAPTION_RELAY_CONFIG: relayConfig,
    RELAY_PORT: '0',
    RELAY_DATA_DIR: join(dir, 'relay'),
    CAPTION_API_KEY: API_KEY,
  });
  started.push(relay);
  const relayPort = await portOf(relay, /^relay listening$/);
  const srt = await freePort();
  const sources = startServiceProcess(join(root, 'services/sources/src/index.ts'), {
    SOURCES_PORT: '0',
    CAPTION_URL: 'http://127.0.0.1:9',
    CAPTION_API_KEY: API_KEY,
    RELAY_URL: `ws://127.0.0.1:${relayPort}/ws`,
    CAPTION_RELAY_CONFIG: relayConfig,
    SOURCES_DATA_DIR: join(dir, 'sources'),
    SOURCES_RTMP_PORT: '0',
    SOURCES_SRT_PORTS: `${srt}-${srt}`,
    LOG_LEVEL: 'debug',
  });
  started.push(sources);
  const port = await portOf(sources, /^sources listening$/);
  expect(sources.logLines(/^relay rooms API read$/)).toHaveLength(1);

  const relayApi = (method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${relayPort}${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const created = await relayApi('POST', '/rooms', { name: 'Hall C', id: 'hall-c' });
  expect(created.status).toBe(201);
  const { room } = (await created.json()) as { room: CaptionRoom };
  const createdAt = Date.now();
  let id = '';
  await until('a source added to the new room', async () => {
    const added = await api(port, 'POST', '/sources', {
      room: room.sourceRoom,
      name: 'Hall C encoder',
      input: { kind: 'srt-push' },
    });
    id = added.json.source?.id ?? '';
    return added.status === 201;
  });
  expect(Date.now() - createdAt).toBeLessThan(2000);
  await until('the source run', () =>
    sources.logLines(/^source lease held; running$/).some((l) => l.source === id),
  );

  expect((await relayApi('DELETE', `/rooms/${room.id}`)).status).toBe(204);
  const removedAt = Date.now();
  await until('the source stopped', () => sources.logLines(/^source stopped$/).some((l) => l.source === id));
  expect(Date.now() - removedAt).toBeLessThan(2000);
  await until('the source failed, saying why', async () => {
    const { json } = await api(port, 'GET', `/sources/${id}`);
    return json.source?.state === 'failed' && /no room "hall-c"/.test(json.source.reason);
  });
  // A removed room takes no new source; the file's room still does.
  const refused = await api(port, 'POST', '/sources', {
    room: 'hall-c',
    name: 'Late',
    input: { kind: 'srt-push' },
  });
  expect(refused.status).toBe(422);
  for (const token of Object.values(room.tokens)) expect(sources.output()).not.toContain(token);
  expect(sources.output()).not.toContain(API_KEY);
});
