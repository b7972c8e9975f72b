/**
 * What both relay scenarios (fan-out in main.ts, audience in audience.ts) do alike on the client
 * side: read flags, open `ws` sockets, write the relay's room file, talk to the reader threads
 * (readers.mjs), and merge their latencies.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';

/** The part of a `ws` client the benchmark uses (bench/ is not a package, so no ws types here). */
export interface Socket {
  once(event: string, listener: (...args: unknown[]) => void): void;
  send(data: string): void;
  terminate(): void;
}

// bench/ is not a workspace package: borrow `ws` from the relay's dependencies.
const { WebSocket } = createRequire(new URL('../../services/relay/package.json', import.meta.url))('ws') as {
  WebSocket: new (url: string, options: object) => Socket;
};

/** A numeric `--name=value` flag. */
export const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
};

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const quantile = (sorted: Float64Array, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** Opens a socket without compression (`localAddress` to come from another loopback address). */
export async function openSocket(url: string, localAddress?: string): Promise<Socket> {
  const ws = new WebSocket(url, { perMessageDeflate: false, ...(localAddress ? { localAddress } : {}) });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return ws;
}

/** Joins `room` as a writer (the bare broadcast has no rooms: nothing to join there). */
export async function joinAsWriter(ws: Socket, kind: string, room: string, token: string): Promise<void> {
  if (kind === 'bare') return;
  const joined = new Promise((resolve) => ws.once('message', resolve));
  ws.send(JSON.stringify({ protocol: 2, join: room, role: 'write', token }));
  await joined;
}

/** Writes relay.private.json with one room into `dir`; its path. */
export function writeRelayConfig(
  dir: string,
  room: { name: string; read: string; write: string },
  limits?: Record<string, number>,
): string {
  const path = join(dir, 'relay.private.json');
  writeFileSync(
    path,
    JSON.stringify({
      origins: ['http://localhost:8081'],
      rooms: { [room.name]: { read: room.read, write: room.write } },
      ...(limits ? { limits } : {}),
    }),
  );
  return path;
}

/** Sends `message` to a reader thread and resolves with its first reply of `type`. */
export function ask<T>(worker: Worker, message: string, type: string): Promise<T> {
  return new Promise((resolve) => {
    const listen = (reply: { type: string }) => {
      if (reply.type !== type) return;
      worker.off('message', listen);
      resolve(reply as T);
    };
    worker.on('message', listen);
    worker.postMessage(message);
  });
}

/** Waits (5 s at most) until the reader threads have counted `expected` deliveries. */
export async function drain(workers: Worker[], expected: number): Promise<void> {
  for (const until = performance.now() + 5000; performance.now() < until; ) {
    const counts = await Promise.all(workers.map((w) => ask<{ delivered: number }>(w, 'count', 'count')));
    if (counts.reduce((sum, c) => sum + c.delivered, 0) >= expected) return;
    await pause(100);
  }
}

/** Beat frames the reader threads got so far. */
export async function beatsReceived(workers: Worker[]): Promise<number> {
  const counts = await Promise.all(workers.map((w) => ask<{ beats: number }>(w, 'count', 'count')));
  return counts.reduce((sum, c) => sum + c.beats, 0);
}

export interface ReadersResult {
  /** Every delivery's latency (ms), sorted. */
  sorted: Float64Array;
  delivered: number;
  gaps: number;
  /** Reader sockets the server closed. */
  closed: number;
}

/** Stops the reader threads and merges what they measured. */
export async function collect(workers: Worker[]): Promise<ReadersResult> {
  type Part = { latencies: Float64Array; delivered: number; gaps: number; closed: number };
  const parts = await Promise.all(workers.map((w) => ask<Part>(w, 'stop', 'result')));
  const sorted = new Float64Array(parts.reduce((sum, p) => sum + p.latencies.length, 0));
  let offset = 0;
  for (const p of parts) {
    sorted.set(p.latencies, offset);
    offset += p.latencies.length;
  }
  sorted.sort();
  const total = (key: 'delivered' | 'gaps' | 'closed') => parts.reduce((sum, p) => sum + p[key], 0);
  return { sorted, delivered: total('delivered'), gaps: total('gaps'), closed: total('closed') };
}
