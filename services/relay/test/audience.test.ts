import { describe, expect, it, jest } from '@jest/globals';
import { DEFAULT_LIMITS } from '../src/domain/limits.js';
import { Client, OUTPUT, publishAll, relayPerTest, TOKENS } from './helpers.js';

// An audience: thousands of phones read one output room, many from one venue's NAT address.
// Every test here runs with the default limits.
const start = relayPerTest();
jest.setTimeout(60_000);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens `count` sockets in waves of `wave`, `everyMs` apart; each settles to a Client or an error. */
async function arrive<T>(count: number, wave: number, everyMs: number, open: (i: number) => Promise<T>) {
  const all: Promise<PromiseSettledResult<T>>[] = [];
  for (let i = 0; i < count; i += wave) {
    for (let j = i; j < Math.min(count, i + wave); j++) {
      all.push(
        open(j).then(
          (value) => ({ status: 'fulfilled', value }) as const,
          (reason: unknown) => ({ status: 'rejected', reason }) as const,
        ),
      );
    }
    await pause(everyMs);
  }
  return Promise.all(all);
}

const failures = <T>(results: PromiseSettledResult<T>[]) =>
  results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String(r.reason));
const values = <T>(results: PromiseSettledResult<T>[]) =>
  results.filter((r): r is PromiseFulfilledResult<T> => r.status === 'fulfilled').map((r) => r.value);

describe('an audience with the default limits', () => {
  it('admits 2,000 readers of one room from one address arriving within 3 s, and they all stay', async () => {
    const { url, relay } = await start();
    // 2,000 arrivals spread over 3 s (100 every 150 ms), each joining as soon as it is open, as
    // phones on a venue's Wi-Fi do; all of them come from 127.0.0.1.
    const results = await arrive(2000, 100, 150, () => Client.join(url, OUTPUT, 'read', TOKENS.outputRead));
    const readers = values(results);
    try {
      expect(failures(results)).toEqual([]);
      expect(readers.every((r) => 'joined' in r.frames[0]!)).toBe(true);
      expect(relay.hub.stats.rejected).toBe(0);
      expect(relay.hub.connectionCount).toBe(2000);
      // They stay: a caption reaches every one of them.
      const writer = await Client.join(url, OUTPUT, 'write', TOKENS.outputWrite);
      await publishAll(writer, ['Welcome, everyone.']);
      await Promise.all(readers.map((r) => r.count(2)));
      expect(readers.every((r) => (r.frames[1] as { final?: string }).final === 'Welcome, everyone.')).toBe(
        true,
      );
      writer.close();
    } finally {
      for (const reader of readers) reader.close();
    }
  });

  it('still caps sockets that have not joined: per address, then in total, far below the node', async () => {
    const { url, relay } = await start({}, { trustedProxies: '127.0.0.1' });
    const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
    const perIp = DEFAULT_LIMITS.pendingJoinsPerIp;
    const total = DEFAULT_LIMITS.pendingJoins;
    // The caps leave most of the node to sockets that joined.
    expect(total).toBeLessThanOrEqual(DEFAULT_LIMITS.connections / 4);
    const waiting: Client[] = [];
    try {
      // One address holds its share of unjoined sockets, then is refused...
      const first = await arrive(perIp, 128, 20, () => Client.open(url, from('203.0.113.1')));
      expect(failures(first)).toEqual([]);
      waiting.push(...values(first));
      await expect(Client.open(url, from('203.0.113.1'))).rejects.toThrow('HTTP 503');
      // ...while another address still gets in and joins.
      const reader = await Client.open(url, from('198.51.100.1'));
      reader.send({ protocol: 2, join: OUTPUT, role: 'read', token: TOKENS.outputRead });
      expect('joined' in (await reader.count(1))[0]!).toBe(true);
      waiting.push(reader);
      // Unjoined sockets from many addresses stop at the total.
      const rest = await arrive(total - perIp, 128, 20, (i) =>
        Client.open(url, from(`198.51.${100 + (i % 100)}.${2 + Math.floor(i / 100)}`)),
      );
      expect(failures(rest)).toEqual([]);
      waiting.push(...values(rest));
      expect(relay.hub.pendingJoins).toBe(total);
      await expect(Client.open(url, from('192.0.2.1'))).rejects.toThrow('HTTP 503');
      expect(relay.hub.connectionCount).toBe(total + 1);
    } finally {
      for (const client of waiting) client.close();
    }
  });
});
