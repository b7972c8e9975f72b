/**
 * What the realtime session tests run against: a scripted realtime server on a real WebSocket
 * that records what each connection sends, a session on it with fast retries, and microphone
 * frames of a quiet tone.
 */
import type { AddressInfo } from 'node:net';
import { afterEach } from '@jest/globals';
import type { SessionStatus } from '@live-captions/capture';
import { WebSocket, WebSocketServer } from 'ws';
import { type RealtimeSocket, realtimeUrl } from '../../src/browser/lib/realtime-protocol.js';
import { RealtimeSession } from '../../src/browser/lib/realtime-session.js';
import type { RealtimeFinal } from '../../src/browser/lib/realtime-transcripts.js';

export const INPUT_RATE = 16_000;
export const FRAME = 800; // the worklet's 50 ms at 16 kHz
export const KEY = 'k'.repeat(32);

export interface Connection {
  socket: WebSocket;
  protocols: string[];
  events: { type: string; [key: string]: unknown }[];
  /** 24 kHz samples appended on this connection. */
  audio: Int16Array[];
}

/** A scripted realtime server (real WebSocket): records what each connection sends. */
export async function realtimeServer(options: { refuse?: () => boolean } = {}) {
  const connections: Connection[] = [];
  const server = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    verifyClient: (_info, done) => (options.refuse?.() ? done(false, 503) : done(true)),
  });
  const waiters: (() => void)[] = [];
  server.on('connection', (socket, request) => {
    const connection: Connection = {
      socket,
      protocols: String(request.headers['sec-websocket-protocol'] ?? '').split(/,\s*/),
      events: [],
      audio: [],
    };
    connections.push(connection);
    socket.on('message', (data) => {
      const event = JSON.parse(String(data));
      connection.events.push(event);
      if (event.type === 'input_audio_buffer.append') {
        const bytes = Buffer.from(event.audio, 'base64');
        connection.audio.push(new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2));
      }
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: realtimeUrl(`http://127.0.0.1:${port}/`),
    connections,
    /** Resolves once `probe` holds (checked after every received event). */
    async until(probe: () => boolean): Promise<void> {
      const deadline = Date.now() + 5000;
      while (!probe()) {
        if (Date.now() > deadline) throw new Error('timed out');
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    samples(connection: Connection): number {
      return connection.audio.reduce((sum, chunk) => sum + chunk.length, 0);
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Sessions of the running test: once its server is closed, they stop reconnecting. */
const live = new Set<{ ended: boolean }>();

export function session(
  url: string,
  extra: Partial<ConstructorParameters<typeof RealtimeSession>[0]> = {},
  /** Awaited before each reconnect, so a test can hold an outage still while it looks at it. */
  beforeRetry: () => Promise<void> | void = () => undefined,
) {
  const life = { ended: false };
  live.add(life);
  const finals: RealtimeFinal[] = [];
  const partials: string[] = [];
  const statuses: SessionStatus[] = [];
  const current = new RealtimeSession({
    url,
    apiKey: KEY,
    inputRate: INPUT_RATE,
    model: 'ggml-synthetic-tiny',
    language: 'en',
    connect: (address, protocols) => new WebSocket(address, protocols) as unknown as RealtimeSocket,
    // The backoff's delays are told in the status; the tests wait 1 ms instead (for ever once
    // the test is over: a session reconnects for as long as it is capturing).
    retry: {
      sleep: async () => {
        await beforeRetry();
        await new Promise((resolve) => (life.ended ? undefined : setTimeout(resolve, 1)));
      },
    },
    onFinal: (final) => finals.push(final),
    onPartial: (text) => partials.push(text),
    onStatus: (status) => statuses.push(status),
    ...extra,
  });
  return { current, finals, partials, statuses };
}

/** A quiet tone (not silence) so that every sample is distinguishable from padding. */
export const frame = (index: number) =>
  Float32Array.from(
    { length: FRAME },
    (_, i) => 0.1 * Math.sin((2 * Math.PI * 200 * (index * FRAME + i)) / INPUT_RATE),
  );

export const send = (connection: Connection, event: Record<string, unknown>) =>
  connection.socket.send(JSON.stringify(event));

export type Server = Awaited<ReturnType<typeof realtimeServer>>;

/** The server's first connection, once the session has sent it its session.update. */
export async function firstConnection(server: Server): Promise<Connection> {
  await server.until(() => server.connections[0]?.events.length === 1);
  return server.connections[0]!;
}

/** One scripted server per test: the returned function starts it; it is closed after the test. */
export function serverPerTest(): (options?: Parameters<typeof realtimeServer>[0]) => Promise<Server> {
  let current: Server | undefined;
  afterEach(async () => {
    await closeServer(current);
    current = undefined;
  });
  return async (options) => {
    current = await realtimeServer(options);
    return current;
  };
}

/** Ends a test's server and its connections. */
export async function closeServer(server: Server | undefined): Promise<void> {
  for (const life of live) life.ended = true;
  live.clear();
  for (const connection of server?.connections ?? []) connection.socket.terminate();
  await server?.close();
}
