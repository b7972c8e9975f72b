import { describe, expect, it } from '@jest/globals';
import { ConnectionCaps } from '../src/domain/caps.js';

const limits = { connections: 4, perIp: 3, pendingJoins: 3, pendingJoinsPerIp: 2 };

describe('connection caps', () => {
  it('caps sockets that have not joined per address and in total, apart from the joined ones', () => {
    const caps = new ConnectionCaps(limits);
    caps.opened('a');
    caps.opened('a');
    expect(caps.full('a')).toBe(true); // two pending from a
    expect(caps.full('b')).toBe(false);
    caps.joined('a');
    expect(caps.full('a')).toBe(false);
    caps.opened('b');
    caps.opened('c');
    expect(caps.pending).toBe(3);
    expect(caps.full('d')).toBe(true); // three pending in all
    caps.closed('c', true);
    expect([caps.pending, caps.full('d')]).toEqual([2, false]);
  });

  it('caps open sockets per address and in total', () => {
    const caps = new ConnectionCaps(limits);
    for (const key of ['a', 'a', 'a']) {
      caps.opened(key);
      caps.joined(key);
    }
    expect(caps.full('a')).toBe(true);
    caps.opened('b');
    caps.joined('b');
    expect(caps.full('c')).toBe(true); // four open in all
    caps.closed('a', false);
    expect([caps.full('a'), caps.full('c'), caps.pending]).toEqual([false, false, 0]);
  });

  it('applies new limits', () => {
    const caps = new ConnectionCaps(limits);
    caps.opened('a');
    caps.setLimits({ ...limits, pendingJoinsPerIp: 1 });
    expect(caps.full('a')).toBe(true);
  });
});
