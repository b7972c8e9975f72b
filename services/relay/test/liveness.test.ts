/**
 * How the relay tells a live socket from a dead one: pings a socket must answer, and the beats a
 * client that asked for them gets while nothing else goes to it.
 */
import { describe, expect, it } from '@jest/globals';
import { WebSocket } from 'ws';
import { Client, publishAll, relayPerTest, SOURCE, TOKENS } from './helpers.js';

const start = relayPerTest();

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
