/**
 * Where streams live: in this process (one gateway, the default), or in Redis so that
 * several gateways behind one proxy answer as one (`adapters/redis-stream-store.ts`). Both keep the
 * same contract: at most one request per stream, `maxStreams` streams, a 120 s retry cache.
 */
import type { CachedResponse, CacheLookup, Stream, Streams } from './streams.js';

/** A stream's admission, held for the request's lifetime. */
export interface AdmittedStream {
  readonly id: string;
  readonly temporary: boolean;
  /**
   * What the stream committed last, as its request was admitted ("" none): a live window is
   * decoded after it, so Whisper saying it again is caught as a loop.
   */
  readonly previousText: string;
}

export type StoreAdmit = { ok: true; stream: AdmittedStream } | { ok: false; reason: 'busy' | 'capacity' };

export interface Counters {
  completed: number;
  failed: number;
  rejected: number;
  queueTimeouts: number;
}

export interface StreamStore {
  admit(id: string, temporary: boolean): Promise<StoreAdmit>;
  /** The request ended; `committed` (non-empty) becomes the stream's `previousText`. */
  release(stream: AdmittedStream, committed?: string): Promise<void>;
  /** `DELETE /streams/{id}`: idle or unknown streams close (cache forgotten); busy ones stay. */
  close(id: string): Promise<'closed' | 'busy'>;
  lookup(stream: AdmittedStream, requestId: string, signature: string): Promise<CacheLookup>;
  store(
    stream: AdmittedStream,
    requestId: string,
    signature: string,
    response: CachedResponse,
  ): Promise<void>;
  /** Streams alive now. */
  size(): Promise<number>;
  /** Adds one to a health counter (shared by every gateway on a shared store). */
  count(name: keyof Counters): void;
  /** The health counters: the only place they are kept. */
  counters(): Promise<Counters>;
}

/** The single-gateway store: the pure bookkeeping of {@link Streams}, counters in memory. */
export function memoryStreamStore(streams: Streams): StreamStore {
  const counters: Counters = { completed: 0, failed: 0, rejected: 0, queueTimeouts: 0 };
  return {
    admit: async (id, temporary) => streams.admit(id, temporary),
    release: async (stream, committed) => streams.release(stream as Stream, committed),
    close: async (id) => streams.close(id),
    lookup: async (stream, requestId, signature) => streams.lookup(stream as Stream, requestId, signature),
    store: async (stream, requestId, signature, response) =>
      streams.store(stream as Stream, requestId, signature, response),
    size: async () => streams.size,
    count: (name) => {
      counters[name] += 1;
    },
    counters: async () => ({ ...counters }),
  };
}
