import { describe, expect, it } from '@jest/globals';
import { Retention, RoomLog } from '../src/domain/history.js';
import { DEFAULT_LIMITS } from '../src/domain/limits.js';

const add = (retention: Retention, room: RoomLog, at: number, bytes = 10) =>
  retention.append(room, { at, frame: Buffer.alloc(bytes), delivery: `c:${room.next}`, body: '{}' });

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
