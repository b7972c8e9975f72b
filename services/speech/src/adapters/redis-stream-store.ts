/**
 * Streams in Redis, so that N gateways behind one proxy answer as one: a stream busy on
 * gateway A is 429 on gateway B, a retried request ID on B gets A's cached answer, DELETE on B
 * closes a stream A created, `max_streams` counts every gateway's streams, and the health
 * counters add up. Each check-and-set is one Lua script, so two gateways never both win.
 *
 * A request's busy lock has an owner token and a short TTL that its gateway refreshes while the
 * request lives: a gateway that dies holds its streams for at most LOCK_MS.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AdmittedStream, Counters, StoreAdmit, StreamStore } from '../domain/stream-store.js';
import { type CachedResponse, type CacheLookup, MAX_CACHED_RESULTS } from '../domain/streams.js';

/** A busy lock outlives a dead gateway by at most this long. */
export const LOCK_MS = 15_000;
const REFRESH_MS = LOCK_MS / 3;

interface LockedStream extends AdmittedStream {
  readonly token: string;
  readonly refresh: NodeJS.Timeout;
}

export interface RedisStreamStoreOptions {
  /** A fail-fast connection (the queue's): while Redis is away every call fails at once (503). */
  client: Redis;
  /** Key namespace shared by the gateways of one deployment (the queue name). */
  namespace: string;
  maxStreams: number;
  /** Idle stream and cached result lifetime; the contract fixes 120 s. */
  ttlMs?: number;
  /** Cached results per stream, as in memory (MAX_CACHED_RESULTS). */
  maxCached?: number;
}

// KEYS: streams zset, busy key, previous-text key. ARGV: now, ttl, maxStreams, id, token, lockMs.
// Answers {'ok', the stream's previous text} or the refusal; a new stream starts with none.
const ADMIT = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('EXISTS', KEYS[2]) == 1 then return 'busy' end
if not redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'capacity' end
  redis.call('DEL', KEYS[3])
end
redis.call('SET', KEYS[2], ARGV[5], 'PX', ARGV[6])
redis.call('ZADD', KEYS[1], now, ARGV[4])
return {'ok', redis.call('GET', KEYS[3]) or ''}`;

// KEYS: streams zset, busy key. ARGV: token, now, id, lockMs. Only the owner extends its lock.
const REFRESH = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
return 1`;

// KEYS: streams zset, busy key, results zset, previous-text key. ARGV: token, now, id,
// temporary (1/0), committed text ("" keeps the previous one), ttl.
const RELEASE = `
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
if ARGV[4] == '1' then
  redis.call('ZREM', KEYS[1], ARGV[3])
  redis.call('DEL', KEYS[3], KEYS[4])
else
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  if ARGV[5] ~= '' then redis.call('SET', KEYS[4], ARGV[5], 'PX', ARGV[6])
  else redis.call('PEXPIRE', KEYS[4], ARGV[6]) end
end
return 1`;

// KEYS: streams zset, busy key, results zset, previous-text key. ARGV: id, result key prefix.
const CLOSE = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 'busy' end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[4])
for _, requestId in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  redis.call('DEL', ARGV[2] .. requestId)
end
redis.call('DEL', KEYS[3])
return 'closed'`;

// KEYS: result key, results zset (request IDs by time stored). ARGV: request ID, entry, ttl, now,
// max cached, result key prefix. The oldest results beyond the cap go, as in memory.
const STORE = `
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
-- Stores in the same millisecond still rank in the order they came.
local score = tonumber(ARGV[4])
local newest = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) >= score then score = tonumber(newest[2]) + 1 end
redis.call('ZADD', KEYS[2], score, ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if over > 0 then
  local dropped = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #dropped, 2 do redis.call('DEL', ARGV[6] .. dropped[i]) end
end
return 1`;

export function createRedisStreamStore(options: RedisStreamStoreOptions): StreamStore {
  const ttlMs = options.ttlMs ?? 120_000;
  const maxCached = options.maxCached ?? MAX_CACHED_RESULTS;
  const base = `captions:${options.namespace}:streams`;
  const keys = {
    streams: `${base}:sessions`,
    busy: (id: string) => `${base}:busy:${id}`,
    // A sorted set (by time stored); named apart from the former plain set, which expires by itself.
    results: (id: string) => `${base}:cached:${id}`,
    result: (id: string) => `${base}:result:${id}:`,
    previous: (id: string) => `${base}:previous:${id}`,
    counters: `${base}:counters`,
  };
  const redis = options.client;

  return {
    async admit(id, temporary): Promise<StoreAdmit> {
      const token = randomUUID();
      const now = Date.now();
      const outcome = await redis.eval(
        ADMIT,
        3,
        keys.streams,
        keys.busy(id),
        keys.previous(id),
        now,
        ttlMs,
        options.maxStreams,
        id,
        token,
        LOCK_MS,
      );
      if (!Array.isArray(outcome)) return { ok: false, reason: outcome === 'busy' ? 'busy' : 'capacity' };
      const refresh = setInterval(() => {
        redis
          .eval(REFRESH, 2, keys.streams, keys.busy(id), token, Date.now(), id, LOCK_MS)
          .catch(() => undefined);
      }, REFRESH_MS);
      const stream: LockedStream = { id, temporary, token, refresh, previousText: String(outcome[1] ?? '') };
      return { ok: true, stream };
    },

    async release(stream, committed) {
      const { id, token, refresh } = stream as LockedStream;
      clearInterval(refresh);
      await redis.eval(
        RELEASE,
        4,
        keys.streams,
        keys.busy(id),
        keys.results(id),
        keys.previous(id),
        token,
        Date.now(),
        id,
        stream.temporary ? 1 : 0,
        committed ?? '',
        ttlMs,
      );
    },

    async close(id) {
      const outcome = await redis.eval(
        CLOSE,
        4,
        keys.streams,
        keys.busy(id),
        keys.results(id),
        keys.previous(id),
        id,
        keys.result(id),
      );
      return outcome === 'busy' ? 'busy' : 'closed';
    },

    async lookup(stream, requestId, signature): Promise<CacheLookup> {
      if (requestId === '') return { kind: 'miss' };
      const stored = await redis.get(keys.result(stream.id) + requestId);
      if (!stored) return { kind: 'miss' };
      const entry = JSON.parse(stored) as { signature: string; response: CachedResponse };
      return entry.signature === signature ? { kind: 'hit', response: entry.response } : { kind: 'conflict' };
    },

    async store(stream, requestId, signature, response: CachedResponse) {
      if (requestId === '' || stream.temporary) return;
      await redis.eval(
        STORE,
        2,
        keys.result(stream.id) + requestId,
        keys.results(stream.id),
        requestId,
        JSON.stringify({ signature, response }),
        ttlMs,
        Date.now(),
        maxCached,
        keys.result(stream.id),
      );
    },

    async size() {
      return redis.zcount(keys.streams, Date.now() - ttlMs, '+inf');
    },

    count(name) {
      redis.hincrby(keys.counters, name, 1).catch(() => undefined);
    },

    async counters(): Promise<Counters> {
      const values = await redis.hgetall(keys.counters);
      const read = (name: keyof Counters) => Number(values[name] ?? 0);
      return {
        completed: read('completed'),
        failed: read('failed'),
        rejected: read('rejected'),
        queueTimeouts: read('queueTimeouts'),
      };
    },
  };
}
