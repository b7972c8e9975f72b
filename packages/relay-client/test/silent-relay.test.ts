/**
 * A relay that goes silent (fake-relay.ts): given up after two missed beats and a second, or an
 * unanswered join, then joined again; never assumed of a relay that does not beat.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { createPublisher, RELAY_SILENT, type RelayClientEvent } from '../src/node.js';
import { ack, closeAfterTest, closeAll, FAST, FakeRelay, joined, recordingReader } from './fake-relay.js';

afterEach(closeAll);

describe('a silent relay', () => {
  it('is given up when a joined socket gets no frame for two beats and a second, then joined again', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      const index = r.sockets.indexOf(ws);
      joined(ws, value, { beatMs: 20 });
      if (index === 0) {
        // Beats for a while, then nothing: a frozen relay, a dead NAT mapping.
        const timer = setInterval(() => ws.send(JSON.stringify({ beat: true })), 20);
        setTimeout(() => clearInterval(timer), 200);
      } else {
        setInterval(() => ws.readyState === ws.OPEN && ws.send(JSON.stringify({ beat: true })), 20).unref();
      }
    });
    const { reader, events } = await recordingReader(relay);
    closeAfterTest(reader);
    const started = Date.now();
    await relay.count(2);
    const silent = events.find((event) => event.code === RELAY_SILENT)!;
    expect(silent).toMatchObject({
      state: 'waiting',
      reason: expect.stringMatching(/^No word from the relay for 1\.\d s$/),
    });
    // Beats until 200 ms, then 1,040 ms of silence (2 x 20 + 1000), checked every 260 ms.
    expect(Date.now() - started).toBeGreaterThan(1_200);
    expect(Date.now() - started).toBeLessThan(3_000);
    while (reader.state !== 'joined') await new Promise((resolve) => setTimeout(resolve, 10));
    // Beats keep the new socket: it stays joined.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(reader.state).toBe('joined');
    expect(relay.sockets).toHaveLength(2);
  });

  it('is given up when it does not answer a join in time, and the publisher resends after', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      if (r.sockets.indexOf(ws) === 0) return; // accepts the socket, never answers
      if (value.join) return joined(ws, value);
      ack(ws, value, 1);
    });
    const events: RelayClientEvent[] = [];
    const publisher = createPublisher({
      url: await relay.url(),
      room: 'r',
      token: 't',
      joinTimeoutMs: 50,
      ...FAST,
      onState: (event) => events.push(event),
    });
    closeAfterTest(publisher);
    publisher.publish({ final: 'kept', id: 1 });
    await relay.count(3);
    expect(events.map((event) => event.state)).toEqual(['connecting', 'waiting', 'connecting', 'joined']);
    expect(events[1]).toMatchObject({ code: RELAY_SILENT, reason: 'The relay did not answer within 0.1 s' });
    expect(relay.frames.map((frame) => [frame.socket, frame.value.join ?? frame.value.final])).toEqual([
      [0, 'r'],
      [1, 'r'],
      [1, 'kept'],
    ]);
  });

  it('is never assumed of a relay that does not beat', async () => {
    const relay = new FakeRelay((_r, ws, value) => joined(ws, value));
    // A join timeout of 0.3 s: were it the limit after joining too, 0.8 s of silence would end it.
    const { reader } = await recordingReader(relay, { joinTimeoutMs: 300 });
    closeAfterTest(reader);
    while (reader.state !== 'joined') await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(reader.state).toBe('joined');
    expect(relay.sockets).toHaveLength(1);
  });
});
