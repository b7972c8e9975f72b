import type { RelayLimits } from './limits.js';

type CapLimits = Pick<RelayLimits, 'connections' | 'perIp' | 'pendingJoins' | 'pendingJoinsPerIp'>;

/**
 * Open sockets counted against the connection caps: in total and per address key, and apart from
 * those the sockets that have not joined yet, whose caps are far lower so that unauthenticated
 * sockets held open until the join deadline cannot take the places of real clients.
 */
export class ConnectionCaps {
  private open = 0;
  private waiting = 0;
  private readonly perKey = new Map<string, number>();
  private readonly waitingPerKey = new Map<string, number>();

  constructor(private limits: CapLimits) {}

  setLimits(limits: CapLimits): void {
    this.limits = limits;
  }

  /** Sockets that have not joined yet. */
  get pending(): number {
    return this.waiting;
  }

  /** Whether one more socket from `key` would go over a cap. */
  full(key: string): boolean {
    return (
      this.open >= this.limits.connections ||
      (this.perKey.get(key) ?? 0) >= this.limits.perIp ||
      this.waiting >= this.limits.pendingJoins ||
      (this.waitingPerKey.get(key) ?? 0) >= this.limits.pendingJoinsPerIp
    );
  }

  /** A new socket: counted, and pending until `joined` or `closed`. */
  opened(key: string): void {
    this.open += 1;
    this.waiting += 1;
    increment(this.perKey, key);
    increment(this.waitingPerKey, key);
  }

  /** A pending socket joined: it leaves the pending caps. */
  joined(key: string): void {
    this.waiting -= 1;
    decrement(this.waitingPerKey, key);
  }

  /** A socket went; `pending` when it had not joined. */
  closed(key: string, pending: boolean): void {
    if (pending) this.joined(key);
    this.open -= 1;
    decrement(this.perKey, key);
  }
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 1) - 1;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
