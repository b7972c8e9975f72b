// The Redis session store keeps the same contract as the in-memory one (sessions.test.ts).
import { afterAll, describe, expect, it } from '@jest/globals';
import { runRedisUrl } from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { createRedisSessionStore } from '../src/adapters/redis-sessions.js';

const redis = new Redis(runRedisUrl());
afterAll(() => redis.disconnect());

const response = (body: string) => ({ status: 200, contentType: 'application/json', body });

describe('createRedisSessionStore', () => {
  it('keeps at most 64 results per stream, dropping the oldest, as the in-memory store does', async () => {
    const store = createRedisSessionStore({ client: redis, namespace: `cap-${Date.now()}`, maxStreams: 1 });
    const admitted = await store.admit('stream-a', false);
    if (!admitted.ok) throw new Error('not admitted');
    // IDs that sort against the order they are stored in: the oldest must go, not the smallest.
    const id = (i: number) => `request-${1000 - i}`;
    try {
      for (let i = 0; i < 65; i += 1) {
        await store.store(admitted.session, id(i), 'sig', response(String(i)));
      }
      expect(await store.lookup(admitted.session, id(0), 'sig')).toEqual({ kind: 'miss' });
      expect((await store.lookup(admitted.session, id(1), 'sig')).kind).toBe('hit');
      expect((await store.lookup(admitted.session, id(64), 'sig')).kind).toBe('hit');
    } finally {
      // The session's lock refresh stops with it.
      await store.release(admitted.session);
    }
    // Closing forgets every cached result.
    expect(await store.close('stream-a')).toBe('closed');
    expect(await store.lookup(admitted.session, id(64), 'sig')).toEqual({ kind: 'miss' });
  });
});
