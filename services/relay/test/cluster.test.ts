// Cluster mode: two relays on one Redis behave as one relay. Relays are real servers on loopback
// (in this process, or a child process where one must die hard) on the run's private Redis; the
// outages are in cluster-outage.test.ts.
import { describe, expect, it } from '@jest/globals';
import type { RelayAck, RelayJoined } from '@live-captions/protocol';
import { runRedisUrl } from '@live-captions/test-services';
import { parseRelayConfig } from '../src/app.js';
import { captionsOf, finals, node, range, sequences, texts, uniquePrefix } from './cluster-helpers.js';
import { Client, configFile, publishAll, SOURCE, TOKENS, until } from './helpers.js';

describe.each(['stream', 'pubsub'] as const)('two relays on one Redis (%s fan-out)', (fanout) => {
  it('a caption published on A reaches the readers of A and B in room order; acks carry the room sequence', async () => {
    const prefix = uniquePrefix();
    const a = await node(runRedisUrl(), prefix, { fanout, id: 'a' });
    const b = await node(runRedisUrl(), prefix, { fanout, id: 'b', limits: { messagesPerSecond: 1000 } });
    const readerA = await Client.join(a.url, SOURCE, 'read', TOKENS.sourceRead);
    const readerB = await Client.join(b.url, SOURCE, 'read', TOKENS.sourceRead);
    const epoch = (readerA.frames[0] as RelayJoined).epoch;
    expect(readerB.frames[0]).toMatchObject({ epoch, next: 1, gap: false });
    const writerA = await Client.join(a.url, SOURCE, 'write', TOKENS.sourceWrite);
    const writerB = await Client.join(b.url, SOURCE, 'write', TOKENS.sourceWrite);
    await Promise.all([
      publishAll(writerA, texts(20, 'a'), 'publisher_a_000001'),
      publishAll(writerB, texts(20, 'b'), 'publisher_b_000001'),
    ]);
    const acks = [...writerA.frames.slice(1), ...writerB.frames.slice(1)] as RelayAck[];
    expect(acks.map((ack) => ack.sequence).sort((x, y) => x - y)).toEqual(range(1, 40));
    expect(new Set(acks.map((ack) => ack.epoch))).toEqual(new Set([epoch]));
    for (const reader of [readerA, readerB]) {
      await reader.count(41);
      expect(sequences(reader)).toEqual(range(1, 40));
      expect(finals(reader).filter((t) => t?.startsWith('a'))).toEqual(texts(20, 'a'));
      expect(finals(reader).filter((t) => t?.startsWith('b'))).toEqual(texts(20, 'b'));
    }
    // The ack's sequence is the position readers see, whichever node took the publish.
    const byText = new Map(captionsOf(readerB).map((c) => [c.final, c.relay.sequence]));
    expect(byText.get('b 1')).toBe((writerB.frames[1] as RelayAck).sequence);
    expect(byText.get('a 20')).toBe((writerA.frames[20] as RelayAck).sequence);
    for (const c of [readerA, readerB, writerA, writerB]) c.close();
  });
});

describe('cluster', () => {
  it('a reader that moves from A to B with its cursor gets everything once', async () => {
    const prefix = uniquePrefix();
    const a = await node(runRedisUrl(), prefix, { id: 'a' });
    const b = await node(runRedisUrl(), prefix, { id: 'b' });
    const writer = await Client.join(a.url, SOURCE, 'write', TOKENS.sourceWrite);
    const onA = await Client.join(a.url, SOURCE, 'read', TOKENS.sourceRead);
    await publishAll(writer, texts(5));
    await onA.count(6);
    const cursor = captionsOf(onA).at(-1)!.relay;
    onA.close();
    await publishAll(writer, texts(9).slice(5), 'publisher_00000002');
    // Straight after the acks: B may not have every caption yet, the cursor is still good there.
    const onB = await Client.join(b.url, SOURCE, 'read', TOKENS.sourceRead, cursor);
    expect(onB.frames[0]).toMatchObject({ gap: false, epoch: cursor.epoch, next: 6 });
    await publishAll(writer, ['live'], 'publisher_00000003');
    await onB.count(6);
    expect(sequences(onB)).toEqual(range(6, 10));
    expect([...finals(onA), ...finals(onB)]).toEqual([...texts(9), 'live']);
    // Nothing twice: no more frames come.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(onB.frames).toHaveLength(6);
    // A cursor past anything the room had is refused on any node.
    const bogus = await Client.open(b.url);
    bogus.send({
      protocol: 2,
      join: SOURCE,
      role: 'read',
      token: TOKENS.sourceRead,
      cursor: { ...cursor, sequence: 99 },
    });
    expect(await bogus.closed).toEqual({ code: 1008, reason: 'Invalid cursor' });
    writer.close();
    onB.close();
  });

  it('the same delivery sent to A then to B is acked once with one sequence and fanned out once', async () => {
    const prefix = uniquePrefix();
    const a = await node(runRedisUrl(), prefix, { id: 'a' });
    const b = await node(runRedisUrl(), prefix, { id: 'b' });
    const reader = await Client.join(b.url, SOURCE, 'read', TOKENS.sourceRead);
    const caption = {
      msg: true,
      final: 'once',
      id: 1,
      delivery: { client: 'publisher_00000001', sequence: 1 },
    };
    const writerA = await Client.join(a.url, SOURCE, 'write', TOKENS.sourceWrite);
    writerA.send(caption);
    const first = (await writerA.count(2))[1] as RelayAck;
    // The publisher lost A (no ack seen, say) and resends through B.
    const writerB = await Client.join(b.url, SOURCE, 'write', TOKENS.sourceWrite);
    writerB.send(caption);
    const second = (await writerB.count(2))[1] as RelayAck;
    expect(second).toEqual(first);
    expect(first.sequence).toBe(1);
    await publishAll(writerB, ['next'], 'publisher_00000002');
    await reader.count(3);
    expect(finals(reader)).toEqual(['once', 'next']);
    expect(a.relay.hub.stats).toMatchObject({ published: 1, duplicates: 0 });
    expect(b.relay.hub.stats).toMatchObject({ published: 1, duplicates: 1 });
    // Another payload under the same identity is a conflict on any node.
    writerB.send({ ...caption, final: 'other' });
    expect(await writerB.closed).toEqual({ code: 1008, reason: 'Delivery conflict' });
    for (const c of [reader, writerA]) c.close();
  });

  it('history-expired on one node and across nodes: the gap, then what is held, then live', async () => {
    const prefix = uniquePrefix();
    const limits = { replayMessages: 3 };
    const a = await node(runRedisUrl(), prefix, { id: 'a', limits });
    const b = await node(runRedisUrl(), prefix, { id: 'b', limits });
    const writer = await Client.join(a.url, SOURCE, 'write', TOKENS.sourceWrite);
    const epoch = (writer.frames[0] as RelayJoined).epoch;
    await publishAll(writer, texts(8));
    for (const running of [a, b]) {
      await until(() => running.relay.hub.retention.messages === 3);
      const reader = await Client.join(running.url, SOURCE, 'read', TOKENS.sourceRead, {
        epoch,
        sequence: 2,
      });
      expect(reader.frames[0]).toMatchObject({ gap: 'history-expired', epoch, next: 6 });
      await reader.count(4);
      expect(sequences(reader)).toEqual([6, 7, 8]);
      reader.close();
    }
    // A node that starts later reads the trimmed history from Redis: the same answer.
    const c = await node(runRedisUrl(), prefix, { id: 'c', limits });
    const late = await Client.join(c.url, SOURCE, 'read', TOKENS.sourceRead, { epoch, sequence: 2 });
    expect(late.frames[0]).toMatchObject({ gap: 'history-expired', epoch, next: 6 });
    await publishAll(writer, ['live'], 'publisher_00000002');
    await late.count(5);
    expect(sequences(late)).toEqual([6, 7, 8, 9]);
    late.close();
    writer.close();
  });

  it('a room added by a reload is served once its state came from Redis', async () => {
    const prefix = uniquePrefix();
    const a = await node(runRedisUrl(), prefix, { id: 'a' });
    const b = await node(runRedisUrl(), prefix, { id: 'b' });
    const added = {
      ...configFile(),
      rooms: {
        ...configFile().rooms,
        extra: { read: `extraRead_${'e'.repeat(30)}`, write: `extraWrite_${'f'.repeat(30)}` },
      },
    };
    for (const running of [a, b]) running.relay.reload(parseRelayConfig(added));
    const join = async (url: string, role: 'read' | 'write', token: string) => {
      for (;;) {
        const client = await Client.open(url);
        client.send({ protocol: 2, join: 'extra', role, token });
        const outcome = await Promise.race([
          client.count(1).then(() => 'joined'),
          client.closed.then((c) => c.reason),
        ]);
        if (outcome === 'joined') return client;
        expect(outcome).toBe('Relay unavailable'); // not in sync yet: try again
      }
    };
    const reader = await join(b.url, 'read', added.rooms.extra.read);
    const writer = await join(a.url, 'write', added.rooms.extra.write);
    await publishAll(writer, ['in the new room']);
    await reader.count(2);
    expect(finals(reader)).toEqual(['in the new room']);
    reader.close();
    writer.close();
  });

  it('connection caps stay per node', async () => {
    const prefix = uniquePrefix();
    const a = await node(runRedisUrl(), prefix, { id: 'a', limits: { connections: 1 } });
    const b = await node(runRedisUrl(), prefix, { id: 'b', limits: { connections: 1 } });
    const onA = await Client.open(a.url);
    await expect(Client.open(a.url)).rejects.toThrow('HTTP 503');
    const onB = await Client.open(b.url);
    onA.close();
    onB.close();
  });

  it('restarting every node keeps the epoch and the history', async () => {
    const prefix = uniquePrefix();
    const a = await node(runRedisUrl(), prefix, { id: 'a' });
    const writer = await Client.join(a.url, SOURCE, 'write', TOKENS.sourceWrite);
    const reader = await Client.join(a.url, SOURCE, 'read', TOKENS.sourceRead);
    await publishAll(writer, texts(3));
    await reader.count(4);
    const cursor = captionsOf(reader).at(1)!.relay;
    await a.close();
    const a2 = await node(runRedisUrl(), prefix, { id: 'a' });
    const b2 = await node(runRedisUrl(), prefix, { id: 'b' });
    for (const running of [a2, b2]) {
      const again = await Client.join(running.url, SOURCE, 'read', TOKENS.sourceRead, cursor);
      expect(again.frames[0]).toMatchObject({ gap: false, epoch: cursor.epoch, next: 3 });
      await again.count(2);
      expect(finals(again)).toEqual(['line 3']);
      again.close();
    }
  });
});
