import { afterEach } from '@jest/globals';
import { parseTrustedProxies } from '@live-captions/http';
import type { RelayServerFrame } from '@live-captions/protocol';
import { WebSocket } from 'ws';
import {
  createRelay,
  parseRelayConfig,
  type Relay,
  type RelayConfig,
  type RelayLimits,
  type RelayOptions,
} from '../src/app.js';

export const SOURCE = 'source';
export const OUTPUT = 'output';
export const TOKENS = {
  sourceRead: 'sourceRead_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  sourceWrite: 'sourceWrite_bbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  outputRead: 'outputRead_cccccccccccccccccccccccccccccc',
  outputWrite: 'outputWrite_ddddddddddddddddddddddddddddd',
};
export const ORIGIN = 'http://localhost:8765';

export function configFile(limits: Partial<RelayLimits> = {}, extra: Record<string, unknown> = {}) {
  return {
    origins: [ORIGIN, 'http://localhost:8081'],
    rooms: {
      [SOURCE]: { read: TOKENS.sourceRead, write: TOKENS.sourceWrite },
      [OUTPUT]: { read: TOKENS.outputRead, write: TOKENS.outputWrite },
    },
    limits,
    ...extra,
  };
}

export interface Running {
  relay: Relay;
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startRelay(
  limits: Partial<RelayLimits> = {},
  options: {
    port?: number;
    trustedProxies?: string;
    config?: RelayConfig;
    nodeId?: string;
    redis?: RelayOptions['redis'];
  } = {},
): Promise<Running> {
  const relay = createRelay({
    config: options.config ?? parseRelayConfig(configFile(limits)),
    trustedProxies: parseTrustedProxies(options.trustedProxies ?? ''),
    ...(options.nodeId ? { nodeId: options.nodeId } : {}),
    ...(options.redis ? { redis: options.redis } : {}),
  });
  const port = await relay.listen(options.port ?? 0, '127.0.0.1');
  return { relay, port, url: `ws://127.0.0.1:${port}/ws`, close: () => relay.close() };
}

/**
 * For a test file: returns `start`, which starts a relay as `startRelay` does; the relay started
 * last is closed after each test (a test that restarts the relay closes the earlier one itself).
 */
export function relayPerTest(): typeof startRelay {
  let running: Running | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  return async (...args) => {
    running = await startRelay(...args);
    return running;
  };
}

export interface Closed {
  code: number;
  reason: string;
}

/** A raw `ws` client that records every frame and its close. */
export class Client {
  readonly frames: RelayServerFrame[] = [];
  readonly closed: Promise<Closed>;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)));
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    ws.on('error', () => {});
  }

  static open(
    url: string,
    options: { origin?: string; headers?: Record<string, string> } = {},
  ): Promise<Client> {
    const ws = new WebSocket(url, {
      headers: { ...(options.origin ? { origin: options.origin } : {}), ...options.headers },
    });
    const client = new Client(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  static async join(
    url: string,
    room: string,
    role: 'read' | 'write',
    token: string,
    cursor?: { epoch: string; sequence: number },
  ): Promise<Client> {
    const client = await Client.open(url);
    client.send({ protocol: 2, join: room, role, token, ...(cursor ? { cursor } : {}) });
    await client.count(1);
    return client;
  }

  send(value: unknown): void {
    this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
  }

  /** Resolves once `n` frames have arrived (rejects if the socket closes first). */
  async count(n: number): Promise<RelayServerFrame[]> {
    while (this.frames.length < n) {
      if (this.ws.readyState === WebSocket.CLOSED) {
        throw new Error(
          `closed after ${this.frames.length} of ${n} frames: ${JSON.stringify(await this.closed)}`,
        );
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.frames.slice(0, n);
  }

  close(): void {
    this.ws.terminate();
  }
}

/** Publishes captions one by one, waiting for each ack. */
export async function publishAll(
  writer: Client,
  texts: string[],
  client = 'publisher_000000001',
): Promise<void> {
  let seq = 0;
  for (const text of texts) {
    seq += 1;
    writer.send({ msg: true, final: text, id: seq, delivery: { client, sequence: seq } });
    await writer.count(writer.frames.length + 1);
  }
}

/** Waits until `condition` holds, checking every 10 ms; throws after `limitMs`. */
export async function until(condition: () => boolean, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
