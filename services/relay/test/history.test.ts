import { describe, expect, it } from '@jest/globals';
import { Retention, RoomLog } from '../src/domain/history.js';
import { DEFAULT_LIMITS } from '../src/domain/limits.js';

const add = (retention: Retention, room: RoomLog, at: number, bytes = 10) =>
  retention.append(room, { at, frame: Buffer.alloc(bytes), delivery: `c:${room.next}` });

describe('retention', () => {
  it('keeps at most replayMessages per room, oldest out first, and forgets their deliveries', () => {
    const retention = new Retention({ ...DEFAULT_LIMITS, replayMessages: 3 });
    const room = new RoomLog('e');
    for (let i = 0; i < 5; i++) add(retention, room, i);
    expect(room.entries.map((e) => e.sequence)).toEqual([3, 4, 5]);
    expect([room.oldest, room.next]).toEqual([3, 6]);
    expect(room.get(4)?.sequence).toBe(4);
    expect(room.byDelivery('c:1')).toBeUndefined();
    expect(room.byDelivery('c:5')?.sequence).toBe(5);
    expect([retention.messages, retention.bytes]).toEqual([3, 30]);
  });

  it('evicts the oldest captions across rooms above replayTotalMessages and replayBytes', () => {
    const retention = new Retention({ ...DEFAULT_LIMITS, replayTotalMessages: 4, replayBytes: 1000 });
    const a = new RoomLog('e');
    const b = new RoomLog('e');
    add(retention, a, 1);
    add(retention, b, 2);
    add(retention, a, 3);
    add(retention, b, 4);
    add(retention, b, 5);
    expect(a.entries.map((e) => e.sequence)).toEqual([2]);
    expect(b.entries.map((e) => e.sequence)).toEqual([1, 2, 3]);
    // Five captions again: b1 goes; then 10 + 10 + 10 + 980 bytes > 1000: a2 goes too.
    add(retention, a, 6, 980);
    expect(a.entries.map((e) => e.sequence)).toEqual([3]);
    expect(b.entries.map((e) => e.sequence)).toEqual([2, 3]);
    expect([retention.messages, retention.bytes]).toEqual([3, 1000]);
  });

  it('keeps at most replayRoomBytes per room, oldest out first', () => {
    const retention = new Retention({ ...DEFAULT_LIMITS, replayRoomBytes: 100 });
    const room = new RoomLog('e');
    const other = new RoomLog('e');
    for (let i = 0; i < 4; i++) add(retention, room, i, 30);
    add(retention, other, 9, 90);
    // 4 x 30 > 100: the first goes; another room's bytes do not count against this one.
    expect(room.entries.map((e) => e.sequence)).toEqual([2, 3, 4]);
    expect([room.bytes, other.bytes, retention.bytes]).toEqual([90, 90, 180]);
    add(retention, room, 5, 80);
    expect(room.entries.map((e) => e.sequence)).toEqual([5]);
    expect(room.bytes).toBe(80);
  });

  it('finds where a replay bounded in time starts', () => {
    const retention = new Retention(DEFAULT_LIMITS);
    const room = new RoomLog('e');
    expect(room.firstAfter(0)).toBe(1);
    for (const at of [10, 20, 20, 30]) add(retention, room, at);
    expect([5, 10, 15, 20, 29, 30, 99].map((cutoff) => room.firstAfter(cutoff))).toEqual([
      1, 2, 2, 4, 4, 5, 5,
    ]);
  });

  it('expires captions older than replayMs', () => {
    const retention = new Retention({ ...DEFAULT_LIMITS, replayMs: 100 });
    const room = new RoomLog('e');
    add(retention, room, 0);
    add(retention, room, 50);
    retention.expire(room, 120);
    expect(room.entries.map((e) => e.sequence)).toEqual([2]);
    retention.expire(room, 150);
    expect([room.oldest, room.next, retention.messages]).toEqual([3, 3, 0]);
  });
});
