import { afterEach, describe, expect, it } from '@jest/globals';
import { createPublisher, RELAY_PROTOCOL_FAULT, type RelayClientEvent } from '../src/node.js';
import { checkServerFrame } from '../src/server-frames.js';
import { ack, closeAfterTest, closeAll, FAST, FakeRelay, joined, recordingReader } from './fake-relay.js';

const caption = (sequence: number, text: Record<string, unknown> = { final: `c${sequence}` }) =>
  JSON.stringify({ msg: true, ...text, id: sequence, relay: { epoch: 'e1', sequence } });

afterEach(closeAll);

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('checkServerFrame', () => {
  it('takes the five frames of protocol 2', () => {
    const frames = [
      {
        joined: 'r',
        role: 'read',
        protocol: 2,
        epoch: 'e1',
        next: 1,
        gap: 'relay-restarted',
        retentionMs: 0,
      },
      { ack: { client: 'publisher_00000001', sequence: 1 }, epoch: 'e1', sequence: 3 },
      JSON.parse(caption(1)),
      { gap: 'history-expired', epoch: 'e1', next: 4 },
      { beat: true },
    ];
    for (const frame of frames) expect(checkServerFrame(JSON.stringify(frame))).toEqual({ ok: true, frame });
  });

  it.each([
    ['not JSON', '{"msg":', 'Relay frame is not JSON'],
    ['binary', new ArrayBuffer(2), 'Binary frame from the relay'],
    ['of no known kind', '{"hello":1}', 'Unknown relay frame'],
    ['not an object', '42', 'Unknown relay frame'],
    [
      'a caption with both texts',
      caption(1, { final: 'a', interm: 'b' }),
      'Malformed caption frame from the relay: text',
    ],
    [
      'a caption without its position',
      '{"msg":true,"final":"a","id":1}',
      'Malformed caption frame from the relay: relay',
    ],
    [
      'a caption over the text limit',
      caption(1, { final: 'x'.repeat(4001) }),
      'Malformed caption frame from the relay: final',
    ],
    [
      'an ack with a text sequence',
      '{"ack":{"client":"publisher_00000001","sequence":"1"},"epoch":"e","sequence":1}',
      'Malformed ack frame from the relay: ack.sequence',
    ],
    [
      'a joined of another protocol',
      '{"joined":"r","role":"read","protocol":3,"epoch":"e","next":1,"gap":false,"retentionMs":0}',
      'Malformed joined frame from the relay: protocol',
    ],
    [
      'a gap with a field more',
      '{"gap":"history-expired","epoch":"e","next":1,"extra":true}',
      'Malformed gap frame from the relay: unknown field extra',
    ],
  ])('refuses a frame %s, naming its fault', (_what, data, fault) => {
    expect(checkServerFrame(data)).toEqual({ ok: false, fault });
  });
});

describe('a relay that sends a malformed frame', () => {
  it('costs the reader its socket, not a wrong caption: it joins again from its cursor', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      joined(ws, value);
      ws.send(caption(1));
      // The first socket gets a caption with both texts: which one would the page show?
      if (r.sockets.indexOf(ws) === 0) ws.send(caption(2, { final: 'a', interm: 'b' }));
      else ws.send(caption(2));
    });
    const { reader, captions, events } = await recordingReader(relay);
    closeAfterTest(reader);
    await until(() => captions.length >= 2);
    expect(captions.map((c) => c.final)).toEqual(['c1', 'c2']);
    expect(relay.frames[1]!.value).toMatchObject({ cursor: { epoch: 'e1', sequence: 1 } });
    expect(events.map((e) => e.state)).toEqual(['connecting', 'joined', 'waiting', 'connecting', 'joined']);
    expect(events[2]).toEqual({
      state: 'waiting',
      code: RELAY_PROTOCOL_FAULT,
      reason: 'Malformed caption frame from the relay: text',
      retryInMs: 10,
    });
    // The relay saw the client end the socket, with the code that says why.
    await until(() => relay.closes.length >= 1);
    expect(relay.closes[0]).toEqual({
      socket: 0,
      code: RELAY_PROTOCOL_FAULT,
      reason: 'Malformed relay frame',
    });
  });

  it('does not count a malformed ack: the publisher resends the caption on a new socket', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      if (value.join) return joined(ws, value);
      if (r.sockets.indexOf(ws) === 0)
        ws.send(JSON.stringify({ ack: value.delivery, epoch: 'e1', sequence: 0 }));
      else ack(ws, value, 1);
    });
    const acks: unknown[] = [];
    const events: RelayClientEvent[] = [];
    const publisher = createPublisher({
      url: await relay.url(),
      room: 'r',
      token: 't',
      ...FAST,
      onAck: (a) => acks.push(a),
      onState: (e) => events.push(e),
    });
    closeAfterTest(publisher);
    publisher.publish({ final: 'kept', id: 1 });
    await until(() => acks.length === 1);
    expect(relay.frames.map((f) => [f.socket, f.value.join ?? f.value.final])).toEqual([
      [0, 'r'],
      [0, 'kept'],
      [1, 'r'],
      [1, 'kept'],
    ]);
    expect(acks).toEqual([{ ack: relay.frames[1]!.value.delivery, epoch: 'e1', sequence: 1 }]);
    expect(events[2]).toMatchObject({
      state: 'waiting',
      reason: 'Malformed ack frame from the relay: sequence',
    });
  });

  it('backs off further each time, although every socket joins, while the relay keeps breaking the protocol', async () => {
    const relay = new FakeRelay((_r, ws, value) => {
      joined(ws, value);
      ws.send('not json');
    });
    const { reader, events } = await recordingReader(relay);
    closeAfterTest(reader);
    await relay.count(5);
    expect(events.flatMap((e) => e.retryInMs ?? []).slice(0, 4)).toEqual([10, 20, 40, 40]);
  });
});
