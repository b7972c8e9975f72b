/**
 * Who sends for a room. With Redis: a lease per room (`SET key owner NX PX`), renewed well before
 * it expires, released on shutdown, and fenced: a replica treats its lease as lost as soon as it
 * could have expired (a renewal not confirmed in time), before Redis lets another take it.
 * Without Redis: this one process holds every room.
 */
import { Redis } from 'ioredis';

export interface Leases {
  readonly kind: 'redis' | 'local';
  /** Takes or renews the room's lease; true while held. */
  hold(room: string): Promise<boolean>;
  /** Whether this replica may send for `room` now (checked before every POST). */
  valid(room: string): boolean;
  release(room: string): Promise<void>;
  held(): number;
  /** `ok`, `down`, or undefined without Redis. */
  redisState(): 'ok' | 'down' | undefined;
  close(): Promise<void>;
}

export function localLeases(): Leases {
  const rooms = new Set<string>();
  return {
    kind: 'local',
    hold: async (room) => {
      rooms.add(room);
      return true;
    },
    valid: (room) => rooms.has(room),
    release: async (room) => {
      rooms.delete(room);
    },
    held: () => rooms.size,
    redisState: () => undefined,
    close: async () => undefined,
  };
}

const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export function redisLeases(options: { url: string; prefix: string; owner: string; ttlMs: number }): Leases {
  const redis = new Redis(options.url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
  });
  let state: 'ok' | 'down' = 'down';
  redis.on('ready', () => {
    state = 'ok';
  });
  redis.on('error', () => {
    state = 'down';
  });
  redis.on('close', () => {
    state = 'down';
  });
  /** Room -> until when this replica may act on it (ms, our clock). */
  const until = new Map<string, number>();
  // A renewal confirmed at t was sent at t0 <= t: Redis expires the key at t0 + ttl at the
  // earliest. Keep a third of the ttl as margin for clock drift and a slow event loop.
  const safeMs = Math.floor((options.ttlMs * 2) / 3);
  const key = (room: string) => `${options.prefix}lease:${room}`;

  return {
    kind: 'redis',
    async hold(room) {
      const sentAt = Date.now();
      try {
        const ok = until.has(room)
          ? (await redis.eval(RENEW, 1, key(room), options.owner, options.ttlMs)) === 1
          : (await redis.set(key(room), options.owner, 'PX', options.ttlMs, 'NX')) === 'OK';
        if (ok) until.set(room, sentAt + safeMs);
        else until.delete(room);
        return ok;
      } catch {
        // Unknown outcome: keep what we had until it lapses by itself (valid() says when).
        const known = until.get(room);
        if (known !== undefined && known <= Date.now()) until.delete(room);
        return until.has(room);
      }
    },
    valid: (room) => (until.get(room) ?? 0) > Date.now(),
    async release(room) {
      until.delete(room);
      await redis.eval(RELEASE, 1, key(room), options.owner).catch(() => undefined);
    },
    held: () => [...until.values()].filter((t) => t > Date.now()).length,
    redisState: () => state,
    async close() {
      await Promise.all([...until.keys()].map((room) => this.release(room)));
      redis.disconnect();
    },
  };
}
