// Cluster mode: two relays on one Redis behave as one relay. Relays are real servers on loopback
// (in this process, or a child process where one must die hard); Redis is the run's private one,
// or a private redis-server of the test's own where the test stops, kills or flushes it.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { RelayAck, RelayCaption, RelayGap, RelayJoined } from '@live-captions/protocol';
import { createReader, NodeWebSocket, type SocketConstructor } from '@live-captions/relay-client/node';
import { type RedisServer, runRedisUrl, startRedisServer } from '@live-captions/test-services';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { FanoutMode } from '../src/adapters/redis-cluster.js';
import { parseRelayConfig, type RelayLimits } from '../src/app.js';
import {
  Client,
  configFile,
  publishAll,
  type Running,
  SOURCE,
  startRelay,
  TOKENS,
  until,
} from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const texts = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);
const captionsOf = (client: Client) => client.frames.filter((f) => 'msg' in f) as RelayCaption[];
const finals = (client: Client) => captionsOf(client).map((c) => c.final ?? c.interm);
const sequences = (client: Client) => captionsOf(client).map((c) => c.relay.sequence);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A relay node in cluster mode on `url`, ready (in sync with Redis) when this resolves. */
async function node(
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

const uniquePrefix = () => `relay-test-${randomBytes(4).toString('hex')}:`;

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

describe('cluster on a Redis of its own', () => {
  let redis: RedisServer;
  const own = async () => {
    redis = await startRedisServer();
    cleanups.push(() => redis.stop());
    return redis;
  };

  it('flushing Redis gives a new epoch: live readers get relay-restarted, then the new captions', async () => {
    const { url } = await own();
    const a = await node(url, 'relay:', { id: 'a' });
    const b = await node(url, 'relay:', { id: 'b' });
    const writer = await Client.join(a.url, SOURCE, 'write', TOKENS.sourceWrite);
    const reader = await Client.join(b.url, SOURCE, 'read', TOKENS.sourceRead);
    await publishAll(writer, texts(3));
    await reader.count(4);
    const cursor = captionsOf(reader).at(-1)!.relay;
    const admin = new Redis(url);
    await admin.flushall();
    admin.disconnect();
    // Without any publish, the nodes notice the lost epoch on their own.
    await until(() => reader.frames.some((f) => 'gap' in f && !('joined' in f)));
    const gap = reader.frames.at(-1) as RelayGap;
    expect(gap.gap).toBe('relay-restarted');
    expect(gap.epoch).not.toBe(cursor.epoch);
    expect(gap.next).toBe(1);
    await publishAll(writer, ['after flush'], 'publisher_00000002');
    await reader.count(6);
    expect(captionsOf(reader).at(-1)).toMatchObject({
      final: 'after flush',
      relay: { epoch: gap.epoch, sequence: 1 },
    });
    // A reader resuming with a cursor of the old epoch, on either node.
    for (const running of [a, b]) {
      const late = await Client.join(running.url, SOURCE, 'read', TOKENS.sourceRead, cursor);
      expect(late.frames[0]).toMatchObject({ gap: 'relay-restarted', epoch: gap.epoch, next: 1 });
      await late.count(2);
      expect(finals(late)).toEqual(['after flush']);
      late.close();
    }
    writer.close();
    reader.close();
  });

  it('while Redis is away a node refuses joins with 503, closes its sockets with 1013, reports it, and recovers by itself', async () => {
    const server = await own();
    const a = await node(server.url, 'relay:', { id: 'node-a' });
    const reader = await Client.join(a.url, SOURCE, 'read', TOKENS.sourceRead);
    const waiting = await Client.open(a.url);
    const health = await request(a.relay.server).get('/health').expect(200);
    expect(health.body).toMatchObject({ ready: true, node: 'node-a', redis: 'up' });

    await server.kill();
    expect(await reader.closed).toEqual({ code: 1013, reason: 'Relay unavailable' });
    expect((await waiting.closed).code).toBe(1013);
    await expect(Client.open(a.url)).rejects.toThrow('HTTP 503');
    const down = await request(a.relay.server).get('/health').expect(503);
    expect(down.body).toMatchObject({ ready: false, node: 'node-a', redis: 'down' });
    const metrics = await request(a.relay.server).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^relay_redis_up 0$/m);
    expect(metrics.text).toMatch(/^relay_node_info\{node="node-a",redis="down"\} 1$/m);

    await server.start();
    await until(() => a.relay.hub.accepting, 15_000);
    await request(a.relay.server).get('/health').expect(200);
    const writer = await Client.join(a.url, SOURCE, 'write', TOKENS.sourceWrite);
    const again = await Client.join(a.url, SOURCE, 'read', TOKENS.sourceRead);
    await publishAll(writer, ['back']);
    await again.count(2);
    expect(finals(again)).toEqual(['back']);
    writer.close();
    again.close();
  });

  it('a node that stalls catches up from the stream: its live readers miss nothing', async () => {
    const { url } = await own();
    const { spawnRelay } = await import('./processes.js');
    const limits = { replayMessages: 16, messagesPerSecond: 1000 };
    const a = await node(url, 'relay:', { id: 'a', limits });
    const b = await spawnRelay({ REDIS_URL: url, RELAY_NODE_ID: 'b' }, limits);
    cleanups.push(() => b.kill());
    const reader = await Client.join(b.url, SOURCE, 'read', TOKENS.sourceRead);
    const writer = await Client.join(a.url, SOURCE, 'write', TOKENS.sourceWrite);
    await publishAll(writer, texts(2));
    await reader.count(3);
    // B stops (a long pause, a starved CPU) while 40 captions go by: more than its history holds.
    b.child.kill('SIGSTOP');
    await publishAll(writer, texts(42).slice(2), 'publisher_00000002');
    b.child.kill('SIGCONT');
    await reader.count(43);
    expect(reader.frames.slice(1).filter((f) => 'gap' in f)).toEqual([]);
    expect(sequences(reader)).toEqual(range(1, 42));
    writer.close();
    reader.close();
  });

  it('kill relay A: its readers reconnect to B with their cursor and miss nothing', async () => {
    const { url } = await own();
    const { spawnRelay } = await import('./processes.js');
    const a = await spawnRelay({ REDIS_URL: url, RELAY_NODE_ID: 'a' });
    cleanups.push(() => a.kill());
    const b = await node(url, 'relay:', { id: 'b' });
    // The client knows one address; behind Traefik that is any live node. Here: A first, then B.
    const targets = [a.url, b.url];
    let attempt = 0;
    const Failover = class extends (NodeWebSocket as unknown as new (url: string) => object) {
      constructor(_url: string) {
        super(targets[Math.min(attempt++, 1)]!);
      }
    } as unknown as SocketConstructor;
    const received: RelayCaption[] = [];
    const gaps: RelayGap[] = [];
    const reader = createReader({
      url: a.url,
      room: SOURCE,
      token: TOKENS.sourceRead,
      WebSocket: Failover,
      backoffMs: 20,
      onCaption: (c) => received.push(c),
      onGap: (g) => gaps.push(g),
    });
    cleanups.push(() => reader.close());
    await until(() => reader.state === 'joined');
    const writer = await Client.join(b.url, SOURCE, 'write', TOKENS.sourceWrite);
    await publishAll(writer, texts(5));
    await until(() => received.length === 5);
    a.kill();
    await publishAll(writer, texts(10).slice(5), 'publisher_00000002');
    await until(() => received.length === 10);
    expect(attempt).toBe(2);
    expect(received.map((c) => c.relay.sequence)).toEqual(range(1, 10));
    expect(received.map((c) => c.final)).toEqual(texts(10));
    expect(gaps).toEqual([]);
    writer.close();
  });
});
