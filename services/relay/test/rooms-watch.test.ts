/**
 * The services' RoomsWatch (packages/relay-client) against a real relay with a PGlite rooms store:
 * a room made through the API is known within 2 s, a removed one forgotten, a relay outage keeps
 * the rooms, a relay without the API leaves the file's rooms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { parseTrustedProxies } from '@live-captions/http';
import { outputRoomOf } from '@live-captions/protocol';
import { fetchCaptionRoom, RoomsApiError, RoomsWatch, relayHttpUrl } from '@live-captions/relay-client/node';
import { RoomsStore } from '../src/adapters/rooms-store.js';
import { createRelay, parseRelayConfig } from '../src/app.js';
import { configFile, TOKENS } from './helpers.js';

// Each test opens a relay on an embedded PGlite (a WASM PostgreSQL): seconds on a quiet machine,
// far more beside CI's other suites.
jest.setTimeout(120_000);

const API_KEY = 'rooms-watch-test-key-0123456789abcdef';
const FILE = new Map([['file-room', { read: TOKENS.sourceRead, write: TOKENS.sourceWrite }]]);

interface Lines {
  lines: { level: string; fields: Record<string, unknown>; message: string }[];
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}
const logger = (): Lines => {
  const lines: Lines['lines'] = [];
  return {
    lines,
    info: (fields, message) => lines.push({ level: 'info', fields, message }),
    warn: (fields, message) => lines.push({ level: 'warn', fields, message }),
  };
};

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function startRelay(options: { store: boolean; port?: number; dataDir?: string }) {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'rooms-watch-'));
  const store = options.store ? await RoomsStore.open({ dataDir }) : undefined;
  const relay = createRelay({
    config: parseRelayConfig(configFile()),
    trustedProxies: parseTrustedProxies(''),
    rooms: store ? { store, apiKey: API_KEY, pollMs: 200 } : undefined,
  });
  const port = await relay.listen(options.port ?? 0, '127.0.0.1');
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await relay.close();
    await store?.close();
  };
  cleanup.push(close);
  if (!options.dataDir) cleanup.unshift(() => rmSync(dataDir, { recursive: true, force: true }));
  const url = `ws://127.0.0.1:${port}/ws`;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${relayHttpUrl(url)}${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { port, url, dataDir, close, call };
}

function watch(url: string, log = logger(), apiKey: string | undefined = API_KEY) {
  const rooms = new RoomsWatch({ relayUrl: url, apiKey, file: FILE, logger: log, pollMs: 100 });
  let changes = 0;
  rooms.onChange(() => {
    changes += 1;
  });
  cleanup.push(() => rooms.stop());
  return { rooms, log, changes: () => changes };
}

async function within(ms: number, condition: () => boolean): Promise<number> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

describe('relayHttpUrl', () => {
  it('turns the services RELAY_URL into the relay HTTP address', () => {
    expect(relayHttpUrl('ws://127.0.0.1:8080/ws')).toBe('http://127.0.0.1:8080');
    expect(relayHttpUrl('wss://relay.example.org/ws')).toBe('https://relay.example.org');
    expect(relayHttpUrl('wss://example.org/relay/ws')).toBe('https://example.org/relay');
    expect(relayHttpUrl('ws://relay:8080')).toBe('http://relay:8080');
    expect(() => relayHttpUrl('http://relay:8080')).toThrow('ws://');
  });
});

describe('RoomsWatch on a relay with a rooms store', () => {
  it('knows a room created through the API within 2 s and forgets it once removed', async () => {
    const relay = await startRelay({ store: true });
    const { rooms, log, changes } = watch(relay.url);
    await rooms.start();
    expect([...rooms.rooms().keys()]).toEqual(['file-room']);

    const created = await relay.call('POST', '/rooms', { name: 'Main hall', id: 'main-hall' });
    expect(created.status).toBe(201);
    const { room } = (await created.json()) as { room: { tokens: Record<string, string> } };
    const waited = await within(2000, () => rooms.rooms().has('main-hall'));
    expect(waited).toBeLessThan(2000);
    expect(rooms.rooms().get('main-hall')).toEqual({
      read: room.tokens.sourceRead,
      write: room.tokens.sourceWrite,
    });
    expect(rooms.rooms().get(outputRoomOf('main-hall'))).toEqual({
      read: room.tokens.outputRead,
      write: room.tokens.outputWrite,
    });
    expect(changes()).toBe(1);

    expect((await relay.call('DELETE', '/rooms/main-hall')).status).toBe(204);
    await within(2000, () => !rooms.rooms().has('main-hall') && !rooms.rooms().has('main-hall-output'));
    expect(changes()).toBe(2);
    // One line per state change, never a token.
    const text = JSON.stringify(log.lines);
    for (const token of Object.values(room.tokens)) expect(text).not.toContain(token);
    expect(text).not.toContain(API_KEY);
    expect(log.lines.filter((line) => line.message === 'relay rooms changed')).toHaveLength(2);
  });

  it('keeps the rooms while the relay is down and follows it again once back', async () => {
    const relay = await startRelay({ store: true });
    await relay.call('POST', '/rooms', { name: 'Room B', id: 'room-b' });
    const { rooms, log } = watch(relay.url);
    await rooms.start();
    expect(rooms.rooms().has('room-b-output')).toBe(true);

    await relay.close();
    await within(2000, () => log.lines.some((line) => line.fields.problem === 'unreachable'));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(rooms.rooms().has('room-b-output')).toBe(true);
    expect(log.lines.filter((line) => line.level === 'warn')).toHaveLength(1);

    // The same store and port again: a room removed meanwhile is dropped once the relay answers.
    const again = await startRelay({ store: true, port: relay.port, dataDir: relay.dataDir });
    expect((await again.call('DELETE', '/rooms/room-b')).status).toBe(204);
    await within(2000, () => !rooms.rooms().has('room-b-output'));
    expect(log.lines.filter((line) => line.message === 'relay rooms API read')).toHaveLength(2);
  });

  it('keeps only the file rooms when the relay refuses the token', async () => {
    const relay = await startRelay({ store: true });
    await relay.call('POST', '/rooms', { name: 'Room C', id: 'room-c' });
    const { rooms, log } = watch(relay.url, logger(), 'wrong-key-0123456789abcdef0123456789');
    await rooms.start();
    expect([...rooms.rooms().keys()]).toEqual(['file-room']);
    expect(log.lines.at(-1)?.fields.problem).toBe('unauthorized');
  });

  it('lets the file win when an API room has a relay room of the same name', async () => {
    const relay = await startRelay({ store: true });
    await relay.call('POST', '/rooms', { name: 'Room E', id: 'room-e' });
    const file = new Map([['room-e-output', { read: TOKENS.outputRead, write: TOKENS.outputWrite }]]);
    const rooms = new RoomsWatch({ relayUrl: relay.url, apiKey: API_KEY, file, logger: logger() });
    cleanup.push(() => rooms.stop());
    await rooms.start();
    expect(rooms.rooms().get('room-e-output')).toEqual({
      read: TOKENS.outputRead,
      write: TOKENS.outputWrite,
    });
    expect(rooms.rooms().get('room-e')?.write).not.toBe(TOKENS.sourceWrite);
  });

  it('reads one room with fetchCaptionRoom: the room, undefined when unknown', async () => {
    const relay = await startRelay({ store: true });
    await relay.call('POST', '/rooms', { name: 'Room D', id: 'room-d' });
    const base = relayHttpUrl(relay.url);
    expect((await fetchCaptionRoom(base, API_KEY, 'room-d'))?.outputRoom).toBe('room-d-output');
    expect(await fetchCaptionRoom(base, API_KEY, 'nope')).toBeUndefined();
  });
});

describe('RoomsWatch on a relay without a rooms store', () => {
  it('serves the file rooms and logs once that the relay has no rooms API', async () => {
    const relay = await startRelay({ store: false });
    const { rooms, log, changes } = watch(relay.url);
    await rooms.start();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect([...rooms.rooms().keys()]).toEqual(['file-room']);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]?.fields.problem).toBe('no-api');
    expect(changes()).toBe(0);
    const error = await fetchCaptionRoom(relayHttpUrl(relay.url), API_KEY, 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RoomsApiError);
    expect((error as RoomsApiError).problem).toBe('no-api');
  });

  it('applies a new file (SIGHUP) and tells its listeners', async () => {
    const relay = await startRelay({ store: false });
    const { rooms, changes } = watch(relay.url);
    await rooms.start();
    rooms.setFile(new Map([...FILE, ['other', { read: TOKENS.outputRead, write: TOKENS.outputWrite }]]));
    expect([...rooms.rooms().keys()]).toEqual(['file-room', 'other']);
    expect(changes()).toBe(1);
    rooms.setFile(new Map([...FILE, ['other', { read: TOKENS.outputRead, write: TOKENS.outputWrite }]]));
    expect(changes()).toBe(1);
  });
});
