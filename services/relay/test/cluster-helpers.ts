/**
 * Cluster-mode test helpers: relay nodes on a Redis (stopped after each test), and what the
 * tests read from a client's frames.
 */
import { randomBytes } from 'node:crypto';
import { afterEach } from '@jest/globals';
import type { RelayCaption } from '@live-captions/protocol';
import type { FanoutMode } from '../src/adapters/redis-cluster.js';
import type { RelayLimits } from '../src/app.js';
import { type Client, type Running, startRelay, until } from './helpers.js';

export const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export const texts = (n: number, prefix = 'line') =>
  Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
export const captionsOf = (client: Client) => client.frames.filter((f) => 'msg' in f) as RelayCaption[];
export const finals = (client: Client) => captionsOf(client).map((c) => c.final ?? c.interm);
export const sequences = (client: Client) => captionsOf(client).map((c) => c.relay.sequence);
export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A relay node in cluster mode on `url`, ready (in sync with Redis) when this resolves. */
export async function node(
  url: string,
  prefix: string,
  options: { fanout?: FanoutMode; limits?: Partial<RelayLimits>; id?: string; port?: number } = {},
): Promise<Running> {
  const running = await startRelay(options.limits ?? {}, {
    ...(options.port ? { port: options.port } : {}),
    nodeId: options.id ?? 'node',
    redis: { url, prefix, fanout: options.fanout ?? 'stream' },
  });
  cleanups.push(() => running.close());
  await until(() => running.relay.hub.accepting);
  return running;
}

export const uniquePrefix = () => `relay-test-${randomBytes(4).toString('hex')}:`;
