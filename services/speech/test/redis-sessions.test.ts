// The Redis session store keeps the same contract as the in-memory one (sessions.test.ts).
import { afterAll, describe, expect, it } from '@jest/globals';
import { runRedisUrl } from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { createRedisSessionStore } from '../src/adapters/redis-sessions.js';
import { memorySessionStore, type SessionStore } from '../src/domain/session-store.js';
import { StreamSessions } from '../src/domain/sessions.js';

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

describe.each([
  ['in memory', () => memorySessionStore(new StreamSessions({ maxStreams: 4 }))],
  [
    'in Redis',
    () => createRedisSessionStore({ client: redis, namespace: `prev-${Date.now()}`, maxStreams: 4 }),
  ],
] as Array<[string, () => SessionStore]>)('the previous text, %s', (_name, create) => {
  /** Admits `id`, answers its previous text, and releases it with `committed`. */
  const request = async (store: SessionStore, id: string, committed?: string, temporary = false) => {
    const admitted = await store.admit(id, temporary);
    if (!admitted.ok) throw new Error('not admitted');
    const previous = admitted.session.previousText;
    await store.release(admitted.session, committed);
    return previous;
  };

  it('is what the stream committed last, kept through a request that committed nothing', async () => {
    const store = create();
    expect(await request(store, 'stream-a', 'the budget plan for next year')).toBe('');
    expect(await request(store, 'stream-a')).toBe('the budget plan for next year');
    expect(await request(store, 'stream-a', 'three questions first')).toBe('the budget plan for next year');
    expect(await request(store, 'stream-a')).toBe('three questions first');
    // every stream has its own
    expect(await request(store, 'stream-b')).toBe('');
  });

  it('is forgotten when the stream closes, and never kept for a temporary session', async () => {
    const store = create();
    await request(store, 'stream-c', 'the budget plan for next year');
    expect(await store.close('stream-c')).toBe('closed');
    expect(await request(store, 'stream-c')).toBe('');
    await request(store, 'v1-temporary', 'the budget plan for next year', true);
    expect(await request(store, 'v1-temporary')).toBe('');
  });
});
