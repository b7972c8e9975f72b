/** A relay node with a rooms store, and the rooms API as a test calls it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from '@jest/globals';
import { RoomsStore } from '../src/adapters/rooms-store.js';
import { createRelay, parseRelayConfig, type Relay } from '../src/app.js';
import { configFile } from './helpers.js';

export const API_KEY = 'rooms-test-api-key-0123456789abcdef';
export const PAIR = {
  captions: {
    read: 'captionsRead_aaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    write: 'captionsWrite_bbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  },
  'captions-output': {
    read: 'captionsOutRead_cccccccccccccccccccccccccccc',
    write: 'captionsOutWrite_ddddddddddddddddddddddddddd',
  },
};

export interface Node {
  relay: Relay;
  store: RoomsStore;
  base: string;
  ws: string;
  close(): Promise<void>;
}

const open: Node[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const node of open.splice(0)) await node.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const once = (close: () => Promise<void>) => {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= close();
    return closing;
  };
};

export async function startNode(
  dataDir: string,
  options: { url?: string; apiKey?: string } = {},
): Promise<Node> {
  const store = await RoomsStore.open({ url: options.url, dataDir });
  const base = configFile();
  const relay = createRelay({
    config: parseRelayConfig({ ...base, rooms: { ...base.rooms, ...PAIR } }),
    rooms: { store, apiKey: 'apiKey' in options ? options.apiKey : API_KEY, pollMs: 200 },
  });
  const port = await relay.listen(0, '127.0.0.1');
  const node: Node = {
    relay,
    store,
    base: `http://127.0.0.1:${port}`,
    ws: `ws://127.0.0.1:${port}/ws`,
    // Once: a test that restarts a node closes it itself, and the cleanup closes what is left.
    close: once(async () => {
      await relay.close();
      await store.close();
    }),
  };
  open.push(node);
  return node;
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'relay-rooms-'));
  dirs.push(dir);
  return dir;
}

export async function api(
  node: Node,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = API_KEY,
) {
  const res = await fetch(`${node.base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}
