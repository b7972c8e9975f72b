/**
 * Stream sessions and their result caches. A session is idle or busy; at most one request per
 * stream is uploading, queued or running. Idle sessions keep counting against `maxStreams` until
 * they expire (`ttlMs` after their last request finished). Successful results are cached per
 * stream for `ttlMs`, at most `maxCached` per stream (oldest dropped first).
 * Pure bookkeeping: the caller passes the clock, so expiry is testable without waiting.
 */

export interface CachedResponse {
  status: number;
  contentType: string;
  body: string;
}

interface CacheEntry {
  signature: string;
  response: CachedResponse;
  storedAt: number;
}

export interface Session {
  readonly id: string;
  busy: boolean;
  /** Temporary `/v1` sessions (no X-Stream-ID) are closed as soon as their request ends. */
  readonly temporary: boolean;
  lastActivity: number;
  readonly cache: Map<string, CacheEntry>;
  /** The text the stream's last window committed ("" none): its next window is decoded after it. */
  previousText: string;
}

export type AdmitResult = { ok: true; session: Session } | { ok: false; reason: 'busy' | 'capacity' };

export type CacheLookup = { kind: 'miss' } | { kind: 'hit'; response: CachedResponse } | { kind: 'conflict' };

export interface SessionOptions {
  maxStreams: number;
  /** Idle session and cached result lifetime; the contract fixes 120 s. */
  ttlMs?: number;
  /** Cached results per stream; the contract fixes 64. */
  maxCached?: number;
  now?: () => number;
}

/** Cached results per stream, whichever store keeps them; the contract fixes 64. */
export const MAX_CACHED_RESULTS = 64;

export class StreamSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly maxStreams: number;
  private readonly ttlMs: number;
  private readonly maxCached: number;
  private readonly now: () => number;

  constructor(options: SessionOptions) {
    this.maxStreams = options.maxStreams;
    this.ttlMs = options.ttlMs ?? 120_000;
    this.maxCached = options.maxCached ?? MAX_CACHED_RESULTS;
    this.now = options.now ?? Date.now;
  }

  /** Sessions alive now (idle ones until they expire, busy ones always). */
  get size(): number {
    this.expire();
    return this.sessions.size;
  }

  /** Busy sessions: requests uploading, queued or running. */
  get busyCount(): number {
    let count = 0;
    for (const session of this.sessions.values()) if (session.busy) count += 1;
    return count;
  }

  /** Marks the stream busy, creating its session if there is room. */
  admit(id: string, temporary = false): AdmitResult {
    this.expire();
    const existing = this.sessions.get(id);
    if (existing) {
      if (existing.busy) return { ok: false, reason: 'busy' };
      existing.busy = true;
      existing.lastActivity = this.now();
      return { ok: true, session: existing };
    }
    if (this.sessions.size >= this.maxStreams) return { ok: false, reason: 'capacity' };
    const session: Session = {
      id,
      busy: true,
      temporary,
      lastActivity: this.now(),
      cache: new Map(),
      previousText: '',
    };
    this.sessions.set(id, session);
    return { ok: true, session };
  }

  /** The request of a session ended (answered, failed or abandoned); `committed`: the text it committed. */
  release(session: Session, committed?: string): void {
    session.busy = false;
    if (committed) session.previousText = committed;
    session.lastActivity = this.now();
    if (session.temporary && this.sessions.get(session.id) === session) this.sessions.delete(session.id);
  }

  /** `DELETE /streams/{id}`: idle or unknown sessions close at once (cache forgotten); busy ones stay. */
  close(id: string): 'closed' | 'busy' {
    const session = this.sessions.get(id);
    if (session?.busy) return 'busy';
    this.sessions.delete(id);
    return 'closed';
  }

  lookup(session: Session, requestId: string, signature: string): CacheLookup {
    if (requestId === '') return { kind: 'miss' };
    const entry = session.cache.get(requestId);
    if (!entry || entry.storedAt + this.ttlMs <= this.now()) return { kind: 'miss' };
    return entry.signature === signature ? { kind: 'hit', response: entry.response } : { kind: 'conflict' };
  }

  store(session: Session, requestId: string, signature: string, response: CachedResponse): void {
    if (requestId === '' || session.temporary) return;
    // Deleting first moves a stored-again ID to the end: expire() and the cap rely on that order.
    session.cache.delete(requestId);
    session.cache.set(requestId, { signature, response, storedAt: this.now() });
    while (session.cache.size > this.maxCached) {
      const oldest = session.cache.keys().next().value;
      if (oldest === undefined) break;
      session.cache.delete(oldest);
    }
  }

  /** Drops idle sessions past their lifetime and cached results past theirs. */
  private expire(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) {
      if (!session.busy && session.lastActivity + this.ttlMs <= now) {
        this.sessions.delete(id);
        continue;
      }
      for (const [requestId, entry] of session.cache) {
        // store() re-inserts every entry, so the map is in storedAt order: the rest are fresher.
        if (entry.storedAt + this.ttlMs > now) break;
        session.cache.delete(requestId);
      }
    }
  }
}
