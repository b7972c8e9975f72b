/**
 * Which replica works on a named thing (the outputs service's rooms, the stream sources): the one
 * holding its lease. With Redis: a lease per name (`SET <prefix>lease:<name> owner NX PX`),
 * renewed well before it expires, released on shutdown, and fenced: a replica treats its lease as
 * lost as soon as it could have expired (a renewal not confirmed in time), before Redis lets
 * another take it. Without Redis: this one process holds everything.
 */
import { Redis } from 'ioredis';

export interface Leases {
  readonly kind: 'redis' | 'local';
  /** Takes or renews the lease of `name`; true while held. */
  hold(name: string): Promise<boolean>;
  /** Whether this replica may act for `name` now (checked before every outside effect). */
  valid(name: string): boolean;
  release(name: string): Promise<void>;
  held(): number;
  /** `ok`, `down`, or undefined without Redis. */
  redisState(): 'ok' | 'down' | undefined;
  close(): Promise<void>;
}

export function localLeases(): Leases {
  const names = new Set<string>();
  return {
    kind: 'local',
    hold: async (name) => {
      names.add(name);
      return true;
    },
    valid: (name) => names.has(name),
    release: async (name) => {
      names.delete(name);
    },
    held: () => names.size,
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
  /** Name -> until when this replica may act on it (ms, our clock). */
  const until = new Map<string, number>();
  // A renewal confirmed at t was sent at t0 <= t: Redis expires the key at t0 + ttl at the
  // earliest. Keep a third of the ttl as margin for clock drift and a slow event loop.
  const safeMs = Math.floor((options.ttlMs * 2) / 3);
  const key = (name: string) => `${options.prefix}lease:${name}`;

  return {
    kind: 'redis',
    async hold(name) {
      const sentAt = Date.now();
      try {
        const ok = until.has(name)
          ? (await redis.eval(RENEW, 1, key(name), options.owner, options.ttlMs)) === 1
          : (await redis.set(key(name), options.owner, 'PX', options.ttlMs, 'NX')) === 'OK';
        if (ok) until.set(name, sentAt + safeMs);
        else until.delete(name);
        return ok;
      } catch {
        // Unknown outcome: keep what we had until it lapses by itself (valid() says when).
        const known = until.get(name);
        if (known !== undefined && known <= Date.now()) until.delete(name);
        return until.has(name);
      }
    },
    valid: (name) => (until.get(name) ?? 0) > Date.now(),
    async release(name) {
      until.delete(name);
      await redis.eval(RELEASE, 1, key(name), options.owner).catch(() => undefined);
    },
    held: () => [...until.values()].filter((t) => t > Date.now()).length,
    redisState: () => state,
    async close() {
      await Promise.all([...until.keys()].map((name) => this.release(name)));
      redis.disconnect();
    },
  };
}
