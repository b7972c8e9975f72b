/**
 * A socket's join and its frames on a running relay: the joined answer, the publishers' count,
 * the close codes of a bad first frame, a join timeout, a full room, a binary, broken, oversized or
 * too frequent frame, and a read socket that publishes.
 */
import { describe, expect, it } from '@jest/globals';
import { Client, OUTPUT, publishAll, relayPerTest, SOURCE, TOKENS } from './helpers.js';

const start = relayPerTest();

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
