/**
 * The relay publisher against a fake relay (fake-relay.ts): delivery identities and their resends,
 * one caption in flight, reconnects with backoff, pacing, a refusal, what it gives a page to keep.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createPublisher, type RelayClientEvent, RelayPublisher } from '../src/node.js';
import { ack, closeAfterTest, closeAll, FAST, FakeRelay, joined } from './fake-relay.js';

afterEach(closeAll);

describe('publisher', () => {
  it('resends the same delivery identity when no ack arrives in time', async () => {
    let publishes = 0;
    const relay = new FakeRelay((_relay, ws, value) => {
      if (value.join) return joined(ws, value);
      publishes += 1;
      if (publishes === 3) ack(ws, value, 1); // the first two attempts go unanswered
    });
    const acks: unknown[] = [];
    const publisher = createPublisher({
      url: await relay.url(),
      room: 'r',
      token: 't',
      ackTimeoutMs: 30,
      ...FAST,
      onAck: (a) => acks.push(a),
    });
    closeAfterTest(publisher);
    publisher.publish({ final: 'hello', id: 1 });
    await relay.count(4);
    const sent = relay.frames.slice(1).map((f) => f.value);
    expect(sent).toEqual([sent[0], sent[0], sent[0]]);
    expect(sent[0]).toEqual({
      msg: true,
      final: 'hello',
      id: 1,
      delivery: { client: publisher.clientId, sequence: 1 },
    });
    expect(publisher.clientId).toMatch(/^[A-Za-z0-9_-]{16,128}$/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(acks).toHaveLength(1);
    expect(publisher.queued).toBe(0);
    expect(relay.frames).toHaveLength(4);
  });

  it('keeps one caption in flight and sends the next after the ack', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      if (value.join) return joined(ws, value);
      ack(ws, value, r.frames.length - 1);
    });
    const publisher = createPublisher({ url: await relay.url(), room: 'r', token: 't', ...FAST });
    closeAfterTest(publisher);
    for (let i = 1; i <= 5; i++) publisher.publish({ final: `line ${i}`, id: i });
    await relay.count(6);
    expect(relay.frames.slice(1).map((f) => (f.value.delivery as { sequence: number }).sequence)).toEqual([
      1, 2, 3, 4, 5,
    ]);
  });

  it('reconnects with backoff after the socket drops and resends the unacked caption', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      if (value.join) return joined(ws, value);
      // First connection: drop it without an ack (relay restart). Later: ack.
      if (r.sockets.indexOf(ws) === 0) ws.terminate();
      else ack(ws, value, 1);
    });
    const states: RelayClientEvent[] = [];
    const publisher = createPublisher({
      url: await relay.url(),
      room: 'r',
      token: 't',
      ...FAST,
      onState: (e) => states.push(e),
    });
    closeAfterTest(publisher);
    publisher.publish({ final: 'kept', id: 'a' });
    await relay.count(4);
    expect(relay.frames.map((f) => [f.socket, f.value.join ?? f.value.final])).toEqual([
      [0, 'r'],
      [0, 'kept'],
      [1, 'r'],
      [1, 'kept'],
    ]);
    expect(relay.frames[3]!.value.delivery).toEqual(relay.frames[1]!.value.delivery);
    expect(states.map((s) => s.state)).toEqual(['connecting', 'joined', 'waiting', 'connecting', 'joined']);
    expect(states[2]).toMatchObject({ code: 1006, retryInMs: 10 });
  });

  it('sends a delivery identity the caller fixed, unchanged on a resend', async () => {
    let publishes = 0;
    const relay = new FakeRelay((_relay, ws, value) => {
      if (value.join) return joined(ws, value);
      publishes += 1;
      if (publishes === 2) ack(ws, value, 7);
    });
    const publisher = createPublisher({
      url: await relay.url(),
      room: 'r',
      token: 't',
      ackTimeoutMs: 30,
      ...FAST,
    });
    closeAfterTest(publisher);
    const fixed = { client: 'stored-identity-0001', sequence: 42 };
    publisher.publish({ final: 'hola', id: 3, label: 'translation', ln: 'es' }, fixed);
    publisher.publish({ final: 'own', id: 4 });
    await relay.count(4);
    const sent = relay.frames.slice(1).map((f) => f.value.delivery);
    // The fixed identity twice (no ack for the first attempt), then the publisher's own sequence 1.
    expect(sent).toEqual([fixed, fixed, { client: publisher.clientId, sequence: 1 }]);
  });

  it('gives its unacked captions with their identities, for a page to publish again after a reload', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      if (value.join) return joined(ws, value);
      // The first socket takes nothing: the page is reloaded before any ack.
      if (r.sockets.indexOf(ws) > 0) ack(ws, value, r.frames.length - 1);
    });
    const before = createPublisher({ url: await relay.url(), room: 'r', token: 't', ...FAST });
    before.publish({ final: 'kept 1', id: 'a-1' });
    before.publish({ final: 'kept 2', id: 'a-2' });
    await relay.count(2);
    const kept = JSON.parse(JSON.stringify(before.unacked)) as typeof before.unacked;
    before.close();
    expect(kept.map((caption) => [caption.id, caption.delivery])).toEqual([
      ['a-1', { client: before.clientId, sequence: 1 }],
      ['a-2', { client: before.clientId, sequence: 2 }],
    ]);
    const after = createPublisher({ url: await relay.url(), room: 'r', token: 't', ...FAST });
    closeAfterTest(after);
    for (const { msg: _msg, delivery, ...caption } of kept) after.publish(caption, delivery);
    after.publish({ final: 'new', id: 'a-3' });
    await relay.count(6);
    expect(relay.frames.slice(3).map((frame) => [frame.value.id, frame.value.delivery])).toEqual([
      ['a-1', { client: before.clientId, sequence: 1 }],
      ['a-2', { client: before.clientId, sequence: 2 }],
      ['a-3', { client: after.clientId, sequence: 1 }],
    ]);
    while (after.queued > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(after.unacked).toEqual([]);
  });

  it('paces frames to maxPerSecond', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      if (value.join) return joined(ws, value);
      ack(ws, value, r.frames.length - 1);
    });
    const publisher = createPublisher({
      url: await relay.url(),
      room: 'r',
      token: 't',
      maxPerSecond: 5,
      ...FAST,
    });
    closeAfterTest(publisher);
    for (let i = 1; i <= 8; i++) publisher.publish({ final: `line ${i}`, id: i });
    await relay.count(9);
    const times = relay.frames.slice(1).map((f) => f.at);
    // Five within the first second, the sixth not before a second after the first.
    expect(times[5]! - times[0]!).toBeGreaterThanOrEqual(1000);
    for (let i = 5; i < times.length; i++) expect(times[i]! - times[i - 5]!).toBeGreaterThanOrEqual(1000);
  });

  it('doubles the backoff per failed attempt up to the cap', async () => {
    const relay = new FakeRelay((_r, ws) => ws.close(1011, 'broken'));
    const delays: number[] = [];
    const publisher = createPublisher({
      url: await relay.url(),
      room: 'r',
      token: 't',
      ...FAST,
      onState: (e) => e.retryInMs !== undefined && delays.push(e.retryInMs),
    });
    closeAfterTest(publisher);
    await relay.count(5);
    expect(delays.slice(0, 4)).toEqual([10, 20, 40, 40]);
  });

  it('stops on 1008, keeps its queue, and refuses captions above maxQueue', async () => {
    const relay = new FakeRelay((_r, ws) => ws.close(1008, 'Invalid room or token'));
    const events: RelayClientEvent[] = [];
    const publisher = createPublisher({
      url: await relay.url(),
      room: 'r',
      token: 't',
      maxQueue: 2,
      ...FAST,
      onState: (e) => events.push(e),
    });
    closeAfterTest(publisher);
    expect(publisher.publish({ final: 'a', id: 1 })).toBe(true);
    expect(publisher.publish({ interm: 'b', id: 2 })).toBe(true);
    expect(publisher.publish({ final: 'c', id: 3 })).toBe(false);
    while (publisher.state !== 'stopped') await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events.at(-1)).toEqual({ state: 'stopped', code: 1008, reason: 'Invalid room or token' });
    expect(publisher.queued).toBe(2);
    expect(relay.sockets).toHaveLength(1);
  });

  it('needs a WebSocket implementation when there is no global one', () => {
    const global = globalThis as { WebSocket?: unknown };
    const saved = global.WebSocket;
    delete global.WebSocket;
    try {
      expect(() => new RelayPublisher({ url: 'ws://127.0.0.1:1/ws', room: 'r', token: 't' })).toThrow(
        'No WebSocket implementation',
      );
    } finally {
      if (saved) global.WebSocket = saved;
    }
  });
});
