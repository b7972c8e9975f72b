import type { AddressInfo } from 'node:net';
import type { RelayCaption, RelayGap } from '@live-captions/protocol';
import { type WebSocket, WebSocketServer } from 'ws';
import { createReader, type RelayClientEvent, type RelayReaderOptions } from '../src/node.js';

/** Reconnect delays short enough for a test, and a cap low enough to see. */
export const FAST = { backoffMs: 10, maxBackoffMs: 40 };

/** What the running test opened, closed by {@link closeAll} after it. */
const opened = { relays: new Set<FakeRelay>(), clients: new Set<{ close(): void }>() };

/** Closes `client` after the test (with {@link closeAll}); returns it. */
export function closeAfterTest<Client extends { close(): void }>(client: Client): Client {
  opened.clients.add(client);
  return client;
}

/** Closes the test's clients, then its relays: every suite's `afterEach`. */
export async function closeAll(): Promise<void> {
  for (const client of opened.clients) client.close();
  opened.clients.clear();
  await Promise.all([...opened.relays].map((relay) => relay.close()));
  opened.relays.clear();
}

/** A scripted stand-in for the relay: records every frame; the test decides what to answer. */
export class FakeRelay {
  readonly frames: { socket: number; value: Record<string, unknown>; at: number }[] = [];
  readonly sockets: WebSocket[] = [];
  /** How each socket ended, in the order they did. */
  readonly closes: { socket: number; code: number; reason: string }[] = [];
  private readonly wss: WebSocketServer;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly onFrame: (relay: FakeRelay, ws: WebSocket, value: Record<string, unknown>) => void,
  ) {
    opened.relays.add(this);
    this.wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    this.wss.on('connection', (ws) => {
      const index = this.sockets.push(ws) - 1;
      ws.on('close', (code, reason) => this.closes.push({ socket: index, code, reason: String(reason) }));
      ws.on('message', (data) => {
        const value = JSON.parse(String(data)) as Record<string, unknown>;
        this.frames.push({ socket: index, value, at: Date.now() });
        this.onFrame(this, ws, value);
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  async url(): Promise<string> {
    if (!this.wss.address()) await new Promise((resolve) => this.wss.once('listening', resolve));
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}/ws`;
  }

  async count(n: number): Promise<void> {
    while (this.frames.length < n) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  close(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }
}

export function joined(
  ws: WebSocket,
  value: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): void {
  ws.send(
    JSON.stringify({
      joined: value.join,
      role: value.role,
      protocol: 2,
      epoch: 'e1',
      next: 1,
      gap: false,
      retentionMs: 120000,
      ...extra,
    }),
  );
}

export function ack(ws: WebSocket, value: Record<string, unknown>, sequence: number): void {
  ws.send(JSON.stringify({ ack: value.delivery, epoch: 'e1', sequence }));
}

/** A reader of room `r` on `relay` with the fast backoff, recording what it gets; close it after the test. */
export async function recordingReader(relay: FakeRelay, options: Partial<RelayReaderOptions> = {}) {
  const captions: RelayCaption[] = [];
  const gaps: RelayGap[] = [];
  const events: RelayClientEvent[] = [];
  const reader = createReader({
    url: await relay.url(),
    room: 'r',
    token: 't',
    ...FAST,
    onCaption: (caption) => captions.push(caption),
    onGap: (gap) => gaps.push(gap),
    onState: (event) => events.push(event),
    ...options,
  });
  return { reader, captions, gaps, events };
}
