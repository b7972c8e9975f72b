// Cluster mode on a private redis-server of the test's own: Redis stopped, killed or flushed
// under two relays (outage answers, recovery, a new epoch after a flush).
import { describe, expect, it } from '@jest/globals';
import type { RelayCaption, RelayGap } from '@live-captions/protocol';
import { createReader, NodeWebSocket, type SocketConstructor } from '@live-captions/relay-client/node';
import { type RedisServer, startRedisServer } from '@live-captions/test-services';
import { Redis } from 'ioredis';
import request from 'supertest';
import { captionsOf, cleanups, finals, node, range, sequences, texts } from './cluster-helpers.js';
import { Client, publishAll, SOURCE, TOKENS, until } from './helpers.js';

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
