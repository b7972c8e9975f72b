/**
 * Streams and their result caches. A stream is idle or busy; at most one request per
 * stream is uploading, queued or running. Idle streams keep counting against `maxStreams` until
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

export interface Stream {
  readonly id: string;
  busy: boolean;
  /** Temporary `/v1` streams (no X-Stream-ID) are closed as soon as their request ends. */
  readonly temporary: boolean;
  lastActivity: number;
  readonly cache: Map<string, CacheEntry>;
  /** The text the stream's last window committed ("" none): its next window is decoded after it. */
  previousText: string;
}

export type AdmitResult = { ok: true; stream: Stream } | { ok: false; reason: 'busy' | 'capacity' };

export type CacheLookup = { kind: 'miss' } | { kind: 'hit'; response: CachedResponse } | { kind: 'conflict' };

export interface StreamsOptions {
  maxStreams: number;
  /** Idle stream and cached result lifetime; the contract fixes 120 s. */
  ttlMs?: number;
  /** Cached results per stream; the contract fixes 64. */
  maxCached?: number;
  now?: () => number;
}

/** Cached results per stream, whichever store keeps them; the contract fixes 64. */
export const MAX_CACHED_RESULTS = 64;

export class Streams {
  private readonly streams = new Map<string, Stream>();
  private readonly maxStreams: number;
  private readonly ttlMs: number;
  private readonly maxCached: number;
  private readonly now: () => number;

  constructor(options: StreamsOptions) {
    this.maxStreams = options.maxStreams;
    this.ttlMs = options.ttlMs ?? 120_000;
    this.maxCached = options.maxCached ?? MAX_CACHED_RESULTS;
    this.now = options.now ?? Date.now;
  }

  /** Streams alive now (idle ones until they expire, busy ones always). */
  get size(): number {
    this.expire();
    return this.streams.size;
  }

  /** Busy streams: requests uploading, queued or running. */
  get busyCount(): number {
    let count = 0;
    for (const stream of this.streams.values()) if (stream.busy) count += 1;
    return count;
  }

  /** Marks the stream busy, creating it if there is room. */
  admit(id: string, temporary = false): AdmitResult {
    this.expire();
    const existing = this.streams.get(id);
    if (existing) {
      if (existing.busy) return { ok: false, reason: 'busy' };
      existing.busy = true;
      existing.lastActivity = this.now();
      return { ok: true, stream: existing };
    }
    if (this.streams.size >= this.maxStreams) return { ok: false, reason: 'capacity' };
    const stream: Stream = {
      id,
      busy: true,
      temporary,
      lastActivity: this.now(),
      cache: new Map(),
      previousText: '',
    };
    this.streams.set(id, stream);
    return { ok: true, stream };
  }

  /** The request of a stream ended (answered, failed or abandoned); `committed`: the text it committed. */
  release(stream: Stream, committed?: string): void {
    stream.busy = false;
    if (committed) stream.previousText = committed;
    stream.lastActivity = this.now();
    if (stream.temporary && this.streams.get(stream.id) === stream) this.streams.delete(stream.id);
  }

  /** `DELETE /streams/{id}`: idle or unknown streams close at once (cache forgotten); busy ones stay. */
  close(id: string): 'closed' | 'busy' {
    const stream = this.streams.get(id);
    if (stream?.busy) return 'busy';
    this.streams.delete(id);
    return 'closed';
  }

  lookup(stream: Stream, requestId: string, signature: string): CacheLookup {
    if (requestId === '') return { kind: 'miss' };
    const entry = stream.cache.get(requestId);
    if (!entry || entry.storedAt + this.ttlMs <= this.now()) return { kind: 'miss' };
    return entry.signature === signature ? { kind: 'hit', response: entry.response } : { kind: 'conflict' };
  }

  store(stream: Stream, requestId: string, signature: string, response: CachedResponse): void {
    if (requestId === '' || stream.temporary) return;
    // Deleting first moves a stored-again ID to the end: expire() and the cap rely on that order.
    stream.cache.delete(requestId);
    stream.cache.set(requestId, { signature, response, storedAt: this.now() });
    while (stream.cache.size > this.maxCached) {
      const oldest = stream.cache.keys().next().value;
      if (oldest === undefined) break;
      stream.cache.delete(oldest);
    }
  }

  /** Drops idle streams past their lifetime and cached results past theirs. */
  private expire(): void {
    const now = this.now();
    for (const [id, stream] of this.streams) {
      if (!stream.busy && stream.lastActivity + this.ttlMs <= now) {
        this.streams.delete(id);
        continue;
      }
      for (const [requestId, entry] of stream.cache) {
        // store() re-inserts every entry, so the map is in storedAt order: the rest are fresher.
        if (entry.storedAt + this.ttlMs > now) break;
        stream.cache.delete(requestId);
      }
    }
  }
}
