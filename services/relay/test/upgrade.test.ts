/**
 * The relay's WebSocket upgrade: the origin allow-list, the path, the connection caps (total,
 * per address, per IPv6 /64, sockets not joined yet) and whose X-Forwarded-For counts.
 */
import { describe, expect, it } from '@jest/globals';
import { WebSocket } from 'ws';
import { Client, ORIGIN, relayPerTest, SOURCE, TOKENS, until } from './helpers.js';

const start = relayPerTest();

describe('upgrade', () => {
  it('refuses a browser origin that is not listed with 403 and opens no socket', async () => {
    const { url, relay } = await start();
    await expect(Client.open(url, { origin: 'https://evil.example.org' })).rejects.toThrow('HTTP 403');
    await expect(Client.open(url, { origin: 'http://localhost:8765/' })).rejects.toThrow('HTTP 403');
    expect(relay.hub.connectionCount).toBe(0);
    expect(relay.hub.stats.rejected).toBe(2);
  });

  it('accepts a listed origin and a client without Origin', async () => {
    const { url } = await start();
    const browser = await Client.open(url, { origin: ORIGIN });
    const tool = await Client.open(url);
    expect(browser.ws.readyState).toBe(WebSocket.OPEN);
    expect(tool.ws.readyState).toBe(WebSocket.OPEN);
    browser.close();
    tool.close();
  });

  it('answers 404 to an upgrade on another path', async () => {
    const { port } = await start();
    await expect(Client.open(`ws://127.0.0.1:${port}/`)).rejects.toThrow('HTTP 404');
    await expect(Client.open(`ws://127.0.0.1:${port}/wss`)).rejects.toThrow('HTTP 404');
  });

  it('answers 503 over the total and per-address connection caps', async () => {
    const { url } = await start({ connections: 2 });
    const a = await Client.open(url);
    const b = await Client.open(url);
    await expect(Client.open(url)).rejects.toThrow('HTTP 503');
    a.close();
    b.close();
  });

  it('counts per address from X-Forwarded-For only when the peer is a trusted proxy', async () => {
    const { url } = await start({ perIp: 1 }, { trustedProxies: '127.0.0.1' });
    const xff = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    const a = await Client.open(url, xff('203.0.113.7'));
    const b = await Client.open(url, xff('203.0.113.8'));
    await expect(Client.open(url, xff('203.0.113.7'))).rejects.toThrow('HTTP 503');
    a.close();
    b.close();
  });

  it('counts IPv6 clients per /64', async () => {
    const { url } = await start({ perIp: 2 }, { trustedProxies: '127.0.0.1' });
    const xff = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });
    const a = await Client.open(url, xff('2001:db8:1:2::1'));
    const b = await Client.open(url, xff('2001:db8:1:2:ffff:ffff:ffff:fffe'));
    // A third address of the same /64 is over the cap; one in the next /64 is not.
    await expect(Client.open(url, xff('2001:0db8:0001:0002:0:0:0:99'))).rejects.toThrow('HTTP 503');
    const c = await Client.open(url, xff('2001:db8:1:3::1'));
    for (const client of [a, b, c]) client.close();
  });

  it('caps sockets that have not joined per address (pendingJoinsPerIp), apart from the joined ones', async () => {
    // The defaults are sized for an audience (audience.test.ts); 8 keeps this test small.
    const { url, relay } = await start({ pendingJoinsPerIp: 8 });
    const waiting = await Promise.all(Array.from({ length: 8 }, () => Client.open(url)));
    await expect(Client.open(url)).rejects.toThrow('HTTP 503');
    expect(relay.hub.pendingJoins).toBe(8);
    // A socket that joins leaves the pending cap: a new one fits again.
    waiting[0]!.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead });
    await waiting[0]!.count(1);
    expect(relay.hub.pendingJoins).toBe(7);
    const ninth = await Client.open(url);
    await expect(Client.open(url)).rejects.toThrow('HTTP 503');
    // One that goes frees its place as well.
    waiting[1]!.close();
    await until(() => relay.hub.pendingJoins === 7);
    const tenth = await Client.open(url);
    for (const client of [...waiting, ninth, tenth]) client.close();
  });

  it('caps sockets that have not joined across addresses (pendingJoins), and the join deadline frees them', async () => {
    const { url, relay } = await start({ pendingJoins: 3, joinMs: 300 }, { trustedProxies: '127.0.0.1' });
    const xff = (i: number) => ({ headers: { 'x-forwarded-for': `203.0.113.${i}` } });
    const waiting = await Promise.all([1, 2, 3].map((i) => Client.open(url, xff(i))));
    await expect(Client.open(url, xff(4))).rejects.toThrow('HTTP 503');
    for (const client of waiting) expect(await client.closed).toEqual({ code: 1008, reason: 'Join timeout' });
    await until(() => relay.hub.pendingJoins === 0);
    const later = await Client.open(url, xff(4));
    later.close();
  });

  it('ignores X-Forwarded-For from an untrusted peer', async () => {
    const { url } = await start({ perIp: 1 });
    const a = await Client.open(url, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    await expect(Client.open(url, { headers: { 'x-forwarded-for': '203.0.113.8' } })).rejects.toThrow(
      'HTTP 503',
    );
    a.close();
  });
});
