/**
 * The relay reader against a fake relay (fake-relay.ts): reconnects by cursor, gaps, replayMs.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { closeAfterTest, closeAll, FakeRelay, joined, recordingReader } from './fake-relay.js';

afterEach(closeAll);

describe('reader', () => {
  it('reconnects with its cursor and reports a gap', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      const index = r.sockets.indexOf(ws);
      if (index === 0) {
        joined(ws, value, { next: 4 });
        for (const sequence of [4, 5])
          ws.send(
            JSON.stringify({
              msg: true,
              final: `c${sequence}`,
              id: sequence,
              relay: { epoch: 'e1', sequence },
            }),
          );
        setTimeout(() => ws.terminate(), 20);
      } else {
        // After a gap `next` is the oldest caption held, where the replay starts (contract).
        joined(ws, value, { epoch: 'e2', next: 2, gap: 'relay-restarted' });
        ws.send(JSON.stringify({ msg: true, final: 'after', id: 9, relay: { epoch: 'e2', sequence: 2 } }));
      }
    });
    const { reader, captions, gaps } = await recordingReader(relay);
    closeAfterTest(reader);
    await relay.count(2);
    while (captions.length < 3) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(relay.frames[0]!.value).toEqual({ protocol: 2, join: 'r', role: 'read', token: 't', beat: true });
    expect(relay.frames[1]!.value).toEqual({
      protocol: 2,
      join: 'r',
      role: 'read',
      token: 't',
      beat: true,
      cursor: { epoch: 'e1', sequence: 5 },
    });
    expect(captions.map((c) => c.final)).toEqual(['c4', 'c5', 'after']);
    expect(gaps).toEqual([{ gap: 'relay-restarted', epoch: 'e2', next: 2 }]);
    expect(reader.cursor).toEqual({ epoch: 'e2', sequence: 2 });
  });

  it('after a gap, a reconnect before any replayed caption resumes where the replay starts', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      if (r.sockets.indexOf(ws) === 0) {
        joined(ws, value, { epoch: 'e2', next: 7, gap: 'history-expired' });
        setTimeout(() => ws.terminate(), 20);
      } else {
        joined(ws, value, { epoch: 'e2', next: 7 });
      }
    });
    const { reader, gaps } = await recordingReader(relay, { cursor: { epoch: 'e2', sequence: 1 } });
    closeAfterTest(reader);
    await relay.count(2);
    expect(relay.frames[1]!.value).toMatchObject({ cursor: { epoch: 'e2', sequence: 6 } });
    expect(gaps).toHaveLength(1);
  });
  it('sends replayMs while set: cleared once joined, a reconnect takes everything since its cursor', async () => {
    const relay = new FakeRelay((r, ws, value) => {
      joined(ws, value, { next: 4 });
      if (r.sockets.indexOf(ws) === 0) {
        ws.send(JSON.stringify({ msg: true, final: 'c4', id: 4, relay: { epoch: 'e1', sequence: 4 } }));
        setTimeout(() => ws.terminate(), 20);
      }
    });
    const { reader } = await recordingReader(relay, {
      replayMs: 300_000,
      onState: (event) => {
        if (event.state === 'joined') reader.replayMs = undefined;
      },
    });
    closeAfterTest(reader);
    await relay.count(2);
    expect(relay.frames[0]!.value).toMatchObject({ replayMs: 300_000 });
    expect(relay.frames[0]!.value).not.toHaveProperty('cursor');
    expect(relay.frames[1]!.value).toMatchObject({ cursor: { epoch: 'e1', sequence: 4 } });
    expect(relay.frames[1]!.value).not.toHaveProperty('replayMs');
  });
});
