import { describe, expect, it } from '@jest/globals';
import type { RelayCaption, RelayJoined } from '@live-captions/protocol';
import { WebSocket } from 'ws';
import { parseRelayConfig } from '../src/app.js';
import { Client, configFile, OUTPUT, publishAll, relayPerTest, SOURCE, TOKENS, until } from './helpers.js';

const start = relayPerTest();

const CLIENT = 'publisher_00000001';
const texts = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
const finals = (frames: unknown[]) =>
  (frames as RelayCaption[]).filter((f) => 'msg' in f).map((f) => f.final ?? f.interm);

describe('publish', () => {
  it('acks with the room sequence, re-acks a duplicate without a second fan-out, closes a conflict with 1008', async () => {
    const { url, relay } = await start();
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    const epoch = (writer.frames[0] as RelayJoined).epoch;
    const first = {
      msg: true,
      final: 'Hello',
      id: 7,
      label: 'Anna',
      ln: 'en',
      delivery: { client: CLIENT, sequence: 1 },
    };
    const sentAt = Date.now();
    writer.send(first);
    writer.send({ msg: true, interm: 'World', id: 'b-2', delivery: { client: CLIENT, sequence: 2 } });
    writer.send(first);
    const acks = (await writer.count(4)).slice(1);
    // `writers`: the room's one publisher (issue 43.5).
    expect(acks).toEqual([
      { ack: { client: CLIENT, sequence: 1 }, epoch, sequence: 1, writers: 1 },
      { ack: { client: CLIENT, sequence: 2 }, epoch, sequence: 2, writers: 1 },
      { ack: { client: CLIENT, sequence: 1 }, epoch, sequence: 1, writers: 1 },
    ]);
    await reader.count(3);
    // `at`: when the relay took each publish, on its clock.
    const at = expect.any(Number);
    expect(reader.frames.slice(1)).toEqual([
      { msg: true, final: 'Hello', id: 7, label: 'Anna', ln: 'en', relay: { epoch, sequence: 1 }, at },
      { msg: true, interm: 'World', id: 'b-2', relay: { epoch, sequence: 2 }, at },
    ]);
    for (const frame of reader.frames.slice(1) as { at: number }[])
      expect(frame.at >= sentAt && frame.at <= Date.now()).toBe(true);
    expect(relay.hub.stats).toMatchObject({ published: 2, duplicates: 1, delivered: 2 });

    writer.send({ ...first, final: 'Hello again' });
    expect(await writer.closed).toEqual({ code: 1008, reason: 'Delivery conflict' });
    // Nothing more reached the reader: a later caption from another writer comes next.
    const other = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    await publishAll(other, ['after'], 'publisher_00000002');
    await reader.count(4);
    expect(finals(reader.frames)).toEqual(['Hello', 'World', 'after']);
    reader.close();
    other.close();
  });

  it('keeps rooms apart: a caption of one room never reaches the readers of the other', async () => {
    const { url } = await start();
    const outputReader = await Client.join(url, OUTPUT, 'read', TOKENS.outputRead);
    const sourceReader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    const sourceWriter = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    const outputWriter = await Client.join(url, OUTPUT, 'write', TOKENS.outputWrite);
    await publishAll(sourceWriter, ['raw']);
    await publishAll(outputWriter, ['reviewed']);
    await sourceReader.count(2);
    await outputReader.count(2);
    expect(finals(sourceReader.frames)).toEqual(['raw']);
    expect(finals(outputReader.frames)).toEqual(['reviewed']);
    for (const c of [outputReader, sourceReader, sourceWriter, outputWriter]) c.close();
  });
});

describe('fan-out', () => {
  it('delivers every caption to three readers in room order', async () => {
    const { url } = await start({ messagesPerSecond: 1000 });
    const readers = await Promise.all(
      [1, 2, 3].map(() => Client.join(url, SOURCE, 'read', TOKENS.sourceRead)),
    );
    const writers = await Promise.all(
      [1, 2].map(() => Client.join(url, SOURCE, 'write', TOKENS.sourceWrite)),
    );
    await Promise.all([
      publishAll(writers[0]!, texts(40, 'a'), 'publisher_a_000001'),
      publishAll(writers[1]!, texts(40, 'b'), 'publisher_b_000001'),
    ]);
    const expected = Array.from({ length: 80 }, (_, i) => i + 1);
    for (const reader of readers) {
      await reader.count(81);
      const captions = reader.frames.slice(1) as RelayCaption[];
      expect(captions.map((c) => c.relay.sequence)).toEqual(expected);
      expect(captions.filter((c) => c.final?.startsWith('a')).map((c) => c.final)).toEqual(texts(40, 'a'));
    }
    expect(finals(readers[0]!.frames)).toEqual(finals(readers[1]!.frames));
    expect(finals(readers[0]!.frames)).toEqual(finals(readers[2]!.frames));
    for (const c of [...readers, ...writers]) c.close();
  });
});

describe('replay', () => {
  it('replays what a reader missed when it reconnects with its cursor', async () => {
    const { url, relay } = await start();
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    await publishAll(writer, texts(3));
    const seen = (await reader.count(4)).at(-1) as RelayCaption;
    reader.close();
    await publishAll(writer, texts(5).slice(3), 'publisher_00000002');

    const again = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead, seen.relay);
    // next: the first caption it will get (cursor + 1), not the room's next sequence.
    expect(again.frames[0]).toMatchObject({ gap: false, next: 4, epoch: seen.relay.epoch });
    await again.count(3);
    expect(finals(again.frames)).toEqual(['line 4', 'line 5']);
    await publishAll(writer, ['live'], 'publisher_00000003');
    await again.count(4);
    expect((again.frames as RelayCaption[]).slice(1).map((c) => c.relay.sequence)).toEqual([4, 5, 6]);
    expect(relay.hub.stats.replayed).toBe(2);
    writer.close();
    again.close();
  });

  it('reports history-expired and replays what is left when the cursor is older than the history', async () => {
    const { url, relay } = await start({ replayMessages: 3 });
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    await publishAll(writer, texts(8));
    const epoch = (writer.frames[0] as RelayJoined).epoch;
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead, { epoch, sequence: 2 });
    // next: the oldest retained caption, where the replay starts.
    expect(reader.frames[0]).toMatchObject({ gap: 'history-expired', epoch, next: 6 });
    await reader.count(4);
    expect(finals(reader.frames)).toEqual(['line 6', 'line 7', 'line 8']);
    expect(relay.hub.stats.gaps).toBe(1);
    writer.close();
    reader.close();
  });

  it('reports relay-restarted to a cursor of an earlier relay and replays the new history', async () => {
    const first = await start();
    const writer = await Client.join(first.url, SOURCE, 'write', TOKENS.sourceWrite);
    const reader = await Client.join(first.url, SOURCE, 'read', TOKENS.sourceRead);
    await publishAll(writer, texts(2));
    const cursor = ((await reader.count(3)).at(-1) as RelayCaption).relay;
    await first.close();
    expect((await reader.closed).code).toBe(1001);

    const second = await start({}, { port: first.port });
    const writer2 = await Client.join(second.url, SOURCE, 'write', TOKENS.sourceWrite);
    await publishAll(writer2, ['after restart']);
    const again = await Client.join(second.url, SOURCE, 'read', TOKENS.sourceRead, cursor);
    const joined = again.frames[0] as RelayJoined;
    expect(joined.gap).toBe('relay-restarted');
    expect(joined.epoch).not.toBe(cursor.epoch);
    await again.count(2);
    expect(again.frames[1]).toMatchObject({
      final: 'after restart',
      relay: { epoch: joined.epoch, sequence: 1 },
    });
    writer2.close();
    again.close();
  });

  it('drops captions older than replayMs', async () => {
    const { url, relay } = await start({ replayMs: 1 });
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    await publishAll(writer, texts(2));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const epoch = (writer.frames[0] as RelayJoined).epoch;
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead, { epoch, sequence: 0 });
    expect(reader.frames[0]).toMatchObject({ gap: 'history-expired', next: 3 });
    expect(relay.hub.retention.messages).toBe(0);
    writer.close();
    reader.close();
  });
});

describe('backpressure', () => {
  it('closes a reader that stops reading without holding up the others', async () => {
    const { url, relay } = await start({ messagesPerSecond: 100_000, slowMs: 200, replayMessages: 64 });
    const slow = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    const fast = await Promise.all([1, 2].map(() => Client.join(url, SOURCE, 'read', TOKENS.sourceRead)));
    // The slow reader stops reading from its socket: kernel buffers fill, then the relay's.
    (slow.ws as unknown as { _socket: import('node:net').Socket })._socket.pause();
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    const big = 'x'.repeat(3900);
    let sent = 0;
    while (relay.hub.stats.slowConsumers === 0 && sent < 5000) {
      sent += 1;
      writer.send({
        msg: true,
        final: `${sent} ${big}`,
        id: sent,
        delivery: { client: CLIENT, sequence: sent },
      });
      await writer.count(sent + 1);
    }
    expect(relay.hub.stats.slowConsumers).toBe(1);
    for (const reader of fast) {
      await reader.count(sent + 1);
      const sequences = (reader.frames.slice(1) as RelayCaption[]).map((c) => c.relay.sequence);
      expect(sequences).toEqual(Array.from({ length: sent }, (_, i) => i + 1));
      expect(reader.ws.readyState).toBe(WebSocket.OPEN);
    }
    // The slow socket is gone on the relay's side; the fast ones and the writer stay.
    await until(() => relay.hub.connectionCount === 3);
    for (const c of [...fast, writer]) c.close();
  });
});

describe('gap while held back', () => {
  it('tells a reader whose captions left the history while it was blocked with a gap, replays what is held and goes on live', async () => {
    const { url, relay } = await start({
      messagesPerSecond: 100_000,
      replayMessages: 8,
      bufferedBytes: 16384,
    });
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    const socket = (reader.ws as unknown as { _socket: import('node:net').Socket })._socket;
    socket.pause();
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    const big = 'x'.repeat(3900);
    let sent = 0;
    const publish = async () => {
      sent += 1;
      writer.send({
        msg: true,
        final: `${sent} ${big}`,
        id: sent,
        delivery: { client: CLIENT, sequence: sent },
      });
      await writer.count(sent + 1);
    };
    while (relay.hub.blockedReaders === 0 && sent < 5000) await publish();
    expect(relay.hub.blockedReaders).toBe(1);
    // Push what the blocked reader still needs out of the 8-caption history.
    for (let i = 0; i < 20; i++) await publish();
    socket.resume();
    const last = sent;
    await until(() => (reader.frames.at(-1) as RelayCaption | undefined)?.relay?.sequence === last);
    const frames = reader.frames.slice(1);
    const gapAt = frames.findIndex((f) => 'gap' in f);
    expect(gapAt).toBeGreaterThan(0);
    const before = frames.slice(0, gapAt) as RelayCaption[];
    const after = frames.slice(gapAt + 1) as RelayCaption[];
    expect(frames[gapAt]).toEqual({
      gap: 'history-expired',
      epoch: before[0]!.relay.epoch,
      next: after[0]!.relay.sequence,
    });
    // In order on both sides of the gap, and from the gap on everything the history held.
    const seqs = (list: RelayCaption[]) => list.map((c) => c.relay.sequence);
    const first = before[0]!.relay.sequence;
    expect(seqs(before)).toEqual(Array.from({ length: before.length }, (_, i) => first + i));
    expect(seqs(after)).toEqual(Array.from({ length: 8 }, (_, i) => last - 7 + i));
    expect(relay.hub.stats).toMatchObject({ slowConsumers: 0, gaps: 1 });
    expect(reader.ws.readyState).toBe(WebSocket.OPEN);
    // Live again.
    await publish();
    await until(() => (reader.frames.at(-1) as RelayCaption).relay?.sequence === last + 1);
    reader.close();
    writer.close();
  });
});

describe('reload', () => {
  it('closes sockets whose token changed and the sockets of removed rooms, keeps the rest', async () => {
    const { url, relay } = await start();
    const sourceReader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    const sourceWriter = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    const outputReader = await Client.join(url, OUTPUT, 'read', TOKENS.outputRead);
    const next = {
      ...configFile(),
      rooms: {
        [SOURCE]: { read: 'newSourceRead_eeeeeeeeeeeeeeeeeeeeeeeeeeeeee', write: TOKENS.sourceWrite },
      },
    };
    relay.reload(parseRelayConfig(next));
    expect(await sourceReader.closed).toEqual({ code: 1008, reason: 'Token changed' });
    expect(await outputReader.closed).toEqual({ code: 1008, reason: 'Room removed' });
    expect(sourceWriter.ws.readyState).toBe(WebSocket.OPEN);
    const fresh = await Client.join(url, SOURCE, 'read', 'newSourceRead_eeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
    await publishAll(sourceWriter, ['still here']);
    await fresh.count(2);
    expect(finals(fresh.frames)).toEqual(['still here']);
    const old = await Client.open(url);
    old.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead });
    expect((await old.closed).code).toBe(1008);
    sourceWriter.close();
    fresh.close();
  });
});
