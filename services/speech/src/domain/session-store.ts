/**
 * Where stream sessions live: in this process (one gateway, the default), or in Redis so that
 * several gateways behind one proxy answer as one (`adapters/redis-sessions.ts`). Both keep the
 * same contract: at most one request per stream, `maxStreams` sessions, a 120 s retry cache.
 */
import type { CachedResponse, CacheLookup, Session, StreamSessions } from './sessions.js';

/** A stream's admission, held for the request's lifetime. */
export interface StreamSession {
  readonly id: string;
  readonly temporary: boolean;
  /**
   * What the stream committed last, as its request was admitted ("" none): a live window is
   * decoded after it, so Whisper saying it again is caught as a loop.
   */
  readonly previousText: string;
}

export type StoreAdmit = { ok: true; session: StreamSession } | { ok: false; reason: 'busy' | 'capacity' };

export interface Counters {
  completed: number;
  failed: number;
  rejected: number;
  queueTimeouts: number;
}

export interface SessionStore {
  admit(id: string, temporary: boolean): Promise<StoreAdmit>;
  /** The request ended; `committed` (non-empty) becomes the stream's `previousText`. */
  release(session: StreamSession, committed?: string): Promise<void>;
  /** `DELETE /streams/{id}`: idle or unknown sessions close (cache forgotten); busy ones stay. */
  close(id: string): Promise<'closed' | 'busy'>;
  lookup(session: StreamSession, requestId: string, signature: string): Promise<CacheLookup>;
  store(
    session: StreamSession,
    requestId: string,
    signature: string,
    response: CachedResponse,
  ): Promise<void>;
  /** Sessions alive now. */
  size(): Promise<number>;
  /** Adds one to a health counter (shared by every gateway on a shared store). */
  count(name: keyof Counters): void;
  /** The health counters: the only place they are kept. */
  counters(): Promise<Counters>;
}

/** The single-gateway store: the pure bookkeeping of {@link StreamSessions}, counters in memory. */
export function memorySessionStore(sessions: StreamSessions): SessionStore {
  const counters: Counters = { completed: 0, failed: 0, rejected: 0, queueTimeouts: 0 };
  return {
    admit: async (id, temporary) => sessions.admit(id, temporary),
    release: async (session, committed) => sessions.release(session as Session, committed),
    close: async (id) => sessions.close(id),
    lookup: async (session, requestId, signature) =>
      sessions.lookup(session as Session, requestId, signature),
    store: async (session, requestId, signature, response) =>
      sessions.store(session as Session, requestId, signature, response),
    size: async () => sessions.size,
    count: (name) => {
      counters[name] += 1;
    },
    counters: async () => ({ ...counters }),
  };
}
