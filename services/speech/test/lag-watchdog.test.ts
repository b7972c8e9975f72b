// The lag watchdog of a realtime session (TurnDecodes) and the per-stream figures the gateway
// keeps (StreamLagBoard): turns waiting behind a slow decoder are skipped to the live edge, and
// said so, once their audio passes the bound.
import { describe, expect, it } from '@jest/globals';
import { type Decoded, type DecodePorts, TurnDecodes } from '../src/domain/realtime/decodes.js';
import { PartialText } from '../src/domain/realtime/partial.js';
import { DEFAULT_SETTINGS } from '../src/domain/realtime/settings.js';
import { StreamLagBoard } from '../src/domain/stream-lag.js';

function harness(boundSeconds: number) {
  const events: Array<{ type: string; fields: Record<string, unknown> }> = [];
  const backlog: number[] = [];
  const skipped: number[] = [];
  const waiting: Array<(value: Decoded) => void> = [];
  const ports: DecodePorts = {
    decode: (audio) =>
      new Promise<Decoded>((resolve) => {
        waiting.push(() => resolve({ text: ' words', tokens: [], audioSeconds: audio.length / 16000 }));
      }),
    log: () => undefined,
    lagBoundSeconds: boundSeconds,
    backlog: (seconds) => backlog.push(seconds),
    skipped: (seconds) => skipped.push(seconds),
  };
  const decodes = new TurnDecodes(
    ports,
    (type, fields) => events.push({ type, fields }),
    () => false,
  );
  let n = 0;
  const turn = (seconds: number) => {
    n += 1;
    decodes.final(
      { id: `item_${n}`, partial: new PartialText(), lastPartialAt: 0 },
      new Float32Array(seconds * 16000),
      DEFAULT_SETTINGS,
    );
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  /** Lets the decoder answer every decode asked so far, until none is left. */
  const drain = async () => {
    for (let i = 0; i < 10; i++) {
      await settle();
      for (const answer of waiting.splice(0)) answer({ text: '', tokens: [], audioSeconds: 0 });
    }
    await settle();
  };
  return { events, backlog, skipped, turn, drain };
}

describe('realtime lag watchdog', () => {
  it('skips the oldest waiting turns once their audio passes the bound, and says so', async () => {
    const h = harness(8);
    // three 5 s turns committed while the decoder is busy: 15 s behind
    h.turn(5);
    h.turn(5);
    h.turn(5);
    await h.drain();
    const summary = h.events
      .filter((e) => !e.type.endsWith('.delta'))
      .map((e) => [
        e.type.split('.').at(-1),
        e.fields.item_id,
        (e.fields.error as { code?: string } | undefined)?.code,
      ]);
    expect(summary).toEqual([
      ['failed', 'item_1', 'live_edge_skipped'],
      ['failed', 'item_2', 'live_edge_skipped'],
      ['completed', 'item_3', undefined],
    ]);
    expect(h.skipped).toEqual([5, 5]);
    expect(h.backlog).toEqual([5, 10, 15, 10, 5, 0]);
  });

  it('decodes every turn while the backlog stays under the bound', async () => {
    const h = harness(8);
    h.turn(3);
    h.turn(3);
    await h.drain();
    expect(h.events.map((e) => e.type.split('.').at(-1)).filter((t) => t !== 'delta')).toEqual([
      'completed',
      'completed',
    ]);
    expect(h.skipped).toEqual([]);
  });
});

describe('StreamLagBoard', () => {
  it('keeps each live stream’s backlog, smoothed real-time factor and queue wait; forgets idle ones', () => {
    let now = 1_000;
    const board = new StreamLagBoard(() => now, 60_000);
    board.decoded('a', { inferenceSeconds: 1, audioSeconds: 2, queueSeconds: 0.25 });
    board.decoded('a', { inferenceSeconds: 3, audioSeconds: 2, queueSeconds: 0.5 });
    board.backlog('b', 9.5);
    const a = Object.fromEntries(board.entries()).a;
    expect(a?.realTimeFactor).toBeCloseTo(0.3 * 1.5 + 0.7 * 0.5, 6);
    expect(a?.queueWaitSeconds).toBe(0.5);
    expect(board.maxBacklogSeconds()).toBe(9.5);
    now += 61_000;
    expect(board.entries()).toEqual([]);
    expect(board.maxBacklogSeconds()).toBe(0);
  });
});
