import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { WebSocket } from 'ws';
import { Client, ORIGIN, OUTPUT, publishAll, relayPerTest, SOURCE, TOKENS, until } from './helpers.js';

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

describe('join', () => {
  it('answers a fresh join with the room position and no gap', async () => {
    const { url } = await start();
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    expect(reader.frames[0]).toEqual({
      joined: SOURCE,
      role: 'read',
      protocol: 2,
      epoch: expect.any(String),
      next: 1,
      gap: false,
      retentionMs: 1_800_000,
    });
    reader.close();
  });

  it('tells each publisher how many write sockets the room has, in its joined and its acks (issue 43.5)', async () => {
    const { url } = await start();
    const first = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    expect(first.frames[0]).toMatchObject({ joined: SOURCE, role: 'write', writers: 1 });
    await publishAll(first, ['alone'], 'publisher_000000001');
    expect(first.frames.at(-1)).toMatchObject({ sequence: 1, writers: 1 });
    // A second publisher (another capture page, a stream source) joins: it is told at once, the
    // first at its next caption.
    const second = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    expect(second.frames[0]).toMatchObject({ writers: 2 });
    await publishAll(first, ['shared'], 'publisher_000000002');
    expect(first.frames.at(-1)).toMatchObject({ writers: 2 });
    // Readers and the other room do not count.
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    expect(reader.frames[0]).not.toHaveProperty('writers');
    const other = await Client.join(url, OUTPUT, 'write', TOKENS.outputWrite);
    expect(other.frames[0]).toMatchObject({ writers: 1 });
    second.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await publishAll(first, ['alone again'], 'publisher_000000003');
    expect(first.frames.at(-1)).toMatchObject({ writers: 1 });
    for (const client of [first, reader, other]) client.close();
  });

  it.each([
    ['a wrong token', SOURCE, 'read', 'x'.repeat(40)],
    ['an unknown room', 'nowhere', 'read', TOKENS.sourceRead],
    ['a token of another room', SOURCE, 'read', TOKENS.outputRead],
    ['a token of the other role', SOURCE, 'write', TOKENS.sourceRead],
  ])('closes with 1008 on %s', async (_what, room, role, token) => {
    const { url, relay } = await start();
    const client = await Client.open(url);
    client.send({ protocol: 2, join: room, role, token });
    expect(await client.closed).toEqual({ code: 1008, reason: 'Invalid room or token' });
    expect(client.frames).toEqual([]);
    expect(relay.hub.stats.rejected).toBe(1);
  });

  it('closes with 1008 when the first frame is not a join or names another protocol', async () => {
    const { url } = await start();
    const a = await Client.open(url);
    a.send({ msg: true, final: 'hi', id: 1 });
    expect(await a.closed).toEqual({ code: 1008, reason: 'Join first' });
    const b = await Client.open(url);
    b.send({ protocol: 1, join: SOURCE, role: 'read', token: TOKENS.sourceRead });
    expect((await b.closed).code).toBe(1008);
  });

  it('closes with 1008 "Join timeout" when no join arrives before the deadline', async () => {
    const { url } = await start({ joinMs: 100 });
    const client = await Client.open(url);
    expect(await client.closed).toEqual({ code: 1008, reason: 'Join timeout' });
  });

  it('closes with 1013 when the room is full', async () => {
    const { url } = await start({ perRoom: 1 });
    const first = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    const second = await Client.open(url);
    second.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead });
    expect(await second.closed).toEqual({ code: 1013, reason: 'Room full' });
    first.close();
  });
});

describe('frames', () => {
  it('closes with 1003 on a binary frame', async () => {
    const { url } = await start();
    const client = await Client.open(url);
    client.ws.send(Buffer.from('{"protocol":2}'));
    expect((await client.closed).code).toBe(1003);
  });

  it('closes with 1007 on text that is not JSON', async () => {
    const { url } = await start();
    const client = await Client.open(url);
    client.send('{"protocol": 2,');
    expect(await client.closed).toEqual({ code: 1007, reason: 'Invalid JSON' });
  });

  it('closes with 1009 on a frame over payloadBytes', async () => {
    const { url } = await start();
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    writer.send({
      msg: true,
      final: 'x'.repeat(16_400),
      id: 1,
      delivery: { client: 'publisher_00000001', sequence: 1 },
    });
    expect((await writer.closed).code).toBe(1009);
  });

  it('carries the longest caption the text rule allows in any script with the default limits', async () => {
    const { url } = await start();
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    // 4,000 characters of three UTF-8 bytes each: 12,000 bytes of text in the frame.
    const text = '字'.repeat(4000);
    writer.send({ msg: true, final: text, id: 1, delivery: { client: 'publisher_00000001', sequence: 1 } });
    await writer.count(2);
    expect(writer.frames[1]).toMatchObject({ ack: { client: 'publisher_00000001', sequence: 1 } });
    await reader.count(2);
    expect(reader.frames[1]).toMatchObject({ final: text, id: 1 });
  });

  it('closes with 1008 "Rate limit" above messagesPerSecond', async () => {
    const { url } = await start({ messagesPerSecond: 5 });
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    for (let i = 1; i <= 50; i++) {
      writer.send({
        msg: true,
        final: `line ${i}`,
        id: i,
        delivery: { client: 'publisher_00000001', sequence: i },
      });
    }
    expect(await writer.closed).toEqual({ code: 1008, reason: 'Rate limit' });
    // The join used one of the five; at most four captions were acked.
    expect(writer.frames.length).toBeLessThanOrEqual(5);
  });

  it('closes a read socket that publishes with 1008', async () => {
    const { url } = await start();
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    reader.send({ msg: true, final: 'hi', id: 1, delivery: { client: 'publisher_00000001', sequence: 1 } });
    expect(await reader.closed).toEqual({ code: 1008, reason: 'Read sockets cannot publish' });
  });

  it.each([
    ['an unknown key', { extra: 1 }],
    ['both final and interm', { interm: 'b' }],
    ['a text over 4000 characters', { final: 'x'.repeat(4001) }],
    ['an id of the wrong type', { id: { a: 1 } }],
    ['a short delivery client', { delivery: { client: 'short', sequence: 1 } }],
    ['a delivery sequence of 0', { delivery: { client: 'publisher_00000001', sequence: 0 } }],
  ])('closes a publish with %s with 1008', async (_what, change) => {
    const { url } = await start({ payloadBytes: 16384 });
    const writer = await Client.join(url, OUTPUT, 'write', TOKENS.outputWrite);
    writer.send({
      msg: true,
      final: 'a',
      id: 1,
      delivery: { client: 'publisher_00000001', sequence: 1 },
      ...change,
    });
    expect((await writer.closed).code).toBe(1008);
  });
});

describe('http', () => {
  it('GET /health reports the counters', async () => {
    const { relay } = await start();
    const res = await request(relay.server).get('/health').expect(200);
    expect(res.body).toEqual({
      ready: true,
      node: 'relay',
      redis: 'off',
      protocol: 2,
      connections: 0,
      rooms: 2,
      retainedMessages: 0,
      retainedBytes: 0,
      accepted: 0,
      rejected: 0,
      published: 0,
      delivered: 0,
      slowConsumers: 0,
      duplicates: 0,
      replayed: 0,
      gaps: 0,
    });
  });

  it('GET /metrics is Prometheus text with the relay counters', async () => {
    const { relay, url } = await start();
    await expect(Client.open(url, { origin: 'https://evil.example.org' })).rejects.toThrow('HTTP 403');
    const res = await request(relay.server).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^relay_rejected_total 1$/m);
    expect(res.text).toMatch(/^relay_rooms 2$/m);
    expect(res.text).toMatch(/^relay_process_resident_memory_bytes \d+/m);
  });

  it('answers 404 elsewhere', async () => {
    const { relay } = await start();
    await request(relay.server).get('/').expect(404);
  });
});

describe('heartbeat', () => {
  it('terminates a socket that does not answer pings', async () => {
    const { url } = await start({ heartbeatMs: 50 });
    const ws = new WebSocket(url, { autoPong: false });
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.on('open', () =>
      ws.send(JSON.stringify({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead })),
    );
    // 1006: no close frame, the relay dropped the TCP connection.
    expect(await closed).toBe(1006);
  });
});

describe('beats (join.beat)', () => {
  it('tells a socket that asked the beat interval and beats it while nothing else goes to it', async () => {
    const { url } = await start({ beatMs: 40 });
    const reader = await Client.open(url);
    reader.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead, beat: true });
    const [joined] = await reader.count(1);
    expect(joined).toMatchObject({ joined: SOURCE, beatMs: 40 });
    const writer = await Client.open(url);
    writer.send({ protocol: 2, join: SOURCE, role: 'write', token: TOKENS.sourceWrite, beat: true });
    await writer.count(3);
    expect(writer.frames.slice(1)).toEqual([{ beat: true }, { beat: true }]);
    await reader.count(3);
    expect(reader.frames.slice(1, 3)).toEqual([{ beat: true }, { beat: true }]);
    reader.close();
    writer.close();
  });

  it('beats no socket that did not ask, and no reader that got captions since the last tick', async () => {
    // Ticks by hand: the interval is too long to fire during the test.
    const { url, relay } = await start({ beatMs: 3_600_000 });
    const plain = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    expect(plain.frames[0]).not.toHaveProperty('beatMs');
    const reader = await Client.open(url);
    reader.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead, beat: true });
    await reader.count(1);
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    relay.hub.beat();
    await reader.count(2);
    await publishAll(writer, ['one']);
    await reader.count(3);
    relay.hub.beat();
    await publishAll(writer, ['two'], 'publisher_000000002');
    await reader.count(4);
    relay.hub.beat();
    relay.hub.beat();
    await reader.count(5);
    expect(
      reader.frames.slice(1).map((frame) => ('beat' in frame ? 'beat' : (frame as { final: string }).final)),
    ).toEqual(['beat', 'one', 'two', 'beat']);
    expect(plain.frames.filter((frame) => 'beat' in frame)).toEqual([]);
    for (const client of [plain, reader, writer]) client.close();
  });

  it('refuses a join whose beat is not true', async () => {
    const { url } = await start();
    const client = await Client.open(url);
    client.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead, beat: 1 });
    expect(await client.closed).toEqual({ code: 1008, reason: 'beat must be true' });
  });
});
