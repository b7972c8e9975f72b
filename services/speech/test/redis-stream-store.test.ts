// The Redis stream store keeps the same contract as the in-memory one (streams.test.ts).
import { afterAll, describe, expect, it } from '@jest/globals';
import { runRedisUrl } from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { createRedisStreamStore } from '../src/adapters/redis-stream-store.js';
import { memoryStreamStore, type StreamStore } from '../src/domain/stream-store.js';
import { Streams } from '../src/domain/streams.js';

const redis = new Redis(runRedisUrl());
afterAll(() => redis.disconnect());

const response = (body: string) => ({ status: 200, contentType: 'application/json', body });

describe('createRedisStreamStore', () => {
  it('keeps at most 64 results per stream, dropping the oldest, as the in-memory store does', async () => {
    const store = createRedisStreamStore({ client: redis, namespace: `cap-${Date.now()}`, maxStreams: 1 });
    const admitted = await store.admit('stream-a', false);
    if (!admitted.ok) throw new Error('not admitted');
    // IDs that sort against the order they are stored in: the oldest must go, not the smallest.
    const id = (i: number) => `request-${1000 - i}`;
    try {
      for (let i = 0; i < 65; i += 1) {
        await store.store(admitted.stream, id(i), 'sig', response(String(i)));
      }
      expect(await store.lookup(admitted.stream, id(0), 'sig')).toEqual({ kind: 'miss' });
      expect((await store.lookup(admitted.stream, id(1), 'sig')).kind).toBe('hit');
      expect((await store.lookup(admitted.stream, id(64), 'sig')).kind).toBe('hit');
    } finally {
      // The stream's lock refresh stops with it.
      await store.release(admitted.stream);
    }
    // Closing forgets every cached result.
    expect(await store.close('stream-a')).toBe('closed');
    expect(await store.lookup(admitted.stream, id(64), 'sig')).toEqual({ kind: 'miss' });
  });
});

describe.each([
  ['in memory', () => memoryStreamStore(new Streams({ maxStreams: 4 }))],
  [
    'in Redis',
    () => createRedisStreamStore({ client: redis, namespace: `prev-${Date.now()}`, maxStreams: 4 }),
  ],
] as Array<[string, () => StreamStore]>)('the previous text, %s', (_name, create) => {
  /** Admits `id`, answers its previous text, and releases it with `committed`. */
  const request = async (store: StreamStore, id: string, committed?: string, temporary = false) => {
    const admitted = await store.admit(id, temporary);
    if (!admitted.ok) throw new Error('not admitted');
    const previous = admitted.stream.previousText;
    await store.release(admitted.stream, committed);
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

  it('is forgotten when the stream closes, and never kept for a temporary stream', async () => {
    const store = create();
    await request(store, 'stream-c', 'the budget plan for next year');
    expect(await store.close('stream-c')).toBe('closed');
    expect(await request(store, 'stream-c')).toBe('');
    await request(store, 'v1-temporary', 'the budget plan for next year', true);
    expect(await request(store, 'v1-temporary')).toBe('');
  });
});
