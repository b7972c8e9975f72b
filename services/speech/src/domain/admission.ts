/**
 * Admission in front of the inference queue: streams, the queue deadline, mapping of
 * queue failures to the contract's statuses, and the counters of the health report. The queue
 * itself is FIFO across streams; this class makes sure each stream has at most one request in
 * it and that every job carries its start deadline.
 */
import { MAX_CLIP_SECONDS, SAMPLE_RATE } from '@live-captions/audio';
import { InferenceError, type InferenceQueue } from '@live-captions/inference';
import type {
  InferenceProgress,
  InferenceRequest,
  InferenceResult,
  RealtimeAvailability,
  SpeechHealth,
  WorkerStatus,
} from '@live-captions/protocol';
import { HttpError, Messages } from './errors.js';
import { StreamLagBoard } from './stream-lag.js';
import { type AdmittedStream, type Counters, memoryStreamStore, type StreamStore } from './stream-store.js';
import { type CachedResponse, type CacheLookup, Streams } from './streams.js';

const ENGINE_CACHE_MS = 1_000;

export interface AdmissionOptions {
  queue: InferenceQueue;
  maxStreams: number;
  /** Queue deadline: a job not started within it fails with 429 and never runs. */
  queueTimeoutMs: number;
  version: string;
  /** Clock of stream expiry (tests move it); job deadlines always use the wall clock. */
  now?: () => number;
  /** Shared streams (several gateways on Redis); default this process's own. */
  store?: StreamStore;
  /** Whether `/v1/realtime` can open a session (its VAD source's answer); default: it cannot. */
  realtime?: () => Promise<RealtimeAvailability>;
}

const NO_REALTIME: RealtimeAvailability = { available: false, reason: 'no VAD model configured' };

/** 503 for a backend that cannot take jobs now, with the backend's reason for operators. */
function unavailable(error: unknown): HttpError {
  const reason = error instanceof InferenceError ? error.message : String(error);
  return new HttpError(503, Messages.unavailable, { retryAfter: 1, reason });
}

export type { Counters } from './stream-store.js';

/** Decodes the ready workers run at once, all together: the cluster's decode slots. */
export function clusterDecodeSlots(workers: readonly WorkerStatus[]): number {
  return workers.filter((worker) => worker.ready).reduce((sum, worker) => sum + worker.engine.decodeSlots, 0);
}

/** `load`'s answer, reused for `ms` once it has given one (a refusal is not kept). */
function reusedFor<T>(ms: number, load: () => Promise<T>): () => Promise<T> {
  let kept: { value: T; until: number } | undefined;
  return async () => {
    const now = Date.now();
    if (kept && kept.until > now) return kept.value;
    const value = await load();
    kept = { value, until: now + ms };
    return value;
  };
}

export class Admission {
  /** This process's streams (the store's bookkeeping unless a shared store is given). */
  readonly streams: Streams;
  readonly store: StreamStore;
  /** How far each live stream on this gateway is behind (backlog, real-time factor, queue wait). */
  readonly lag = new StreamLagBoard();
  /** Told of every decode answered 200 (the metrics). */
  onDecoded: (result: InferenceResult, request: InferenceRequest) => void = () => undefined;
  private readonly queue: InferenceQueue;
  /** Decodes not answered yet, each with the means to answer it early (shutdown past its grace). */
  private readonly inflight = new Map<Promise<unknown>, (error: HttpError) => void>();

  constructor(private readonly options: AdmissionOptions) {
    this.queue = options.queue;
    this.streams = new Streams({ maxStreams: options.maxStreams, now: options.now ?? Date.now });
    this.store = options.store ?? memoryStreamStore(this.streams);
  }

  /**
   * The decode slots of every ready worker (with Redis, of every worker process), reused for a
   * second as the engine is; 503 while the queue's backend is unreachable.
   */
  readonly decodeSlots = reusedFor(ENGINE_CACHE_MS, async () => {
    const status = await this.queue.status().catch((error: unknown) => {
      throw unavailable(error);
    });
    return clusterDecodeSlots(status.workers);
  });

  /**
   * The loaded engine, or 503 `Model loading` while no worker is ready. A found engine is reused
   * for a second: with Redis, asking costs a round trip per request otherwise.
   */
  readonly engine = reusedFor(ENGINE_CACHE_MS, async () => {
    const engine = await this.queue.engine().catch((error: unknown) => {
      throw unavailable(error);
    });
    if (!engine) throw new HttpError(503, Messages.modelLoading);
    return engine;
  });

  /** Step 8: capacity, then one request per stream. Refusals count as `rejected`. */
  async admit(streamId: string, temporary = false): Promise<AdmittedStream> {
    const result = await this.store.admit(streamId, temporary).catch((error: unknown) => {
      throw unavailable(error);
    });
    if (result.ok) return result.stream;
    this.bump('rejected');
    if (result.reason === 'capacity')
      throw new HttpError(429, Messages.capacity, { retryAfter: 2, code: 'stream_capacity' });
    throw new HttpError(429, Messages.busy, { retryAfter: 1, code: 'stream_busy' });
  }

  /** The retry cache's answer for a request ID (503 while a shared store is unreachable). */
  async cached(admitted: AdmittedStream, requestId: string, signature: string): Promise<CacheLookup> {
    return this.store.lookup(admitted, requestId, signature).catch((error: unknown) => {
      throw unavailable(error);
    });
  }

  /** Keeps a 200 for retries; best effort (the client has its answer either way). */
  async remember(admitted: AdmittedStream, requestId: string, signature: string, response: CachedResponse) {
    await this.store.store(admitted, requestId, signature, response).catch(() => undefined);
  }

  /** `DELETE /streams/{id}`; 503 while a shared store is unreachable. */
  async closeStream(id: string): Promise<'closed' | 'busy'> {
    return this.store.close(id).catch((error: unknown) => {
      throw unavailable(error);
    });
  }

  /**
   * Never throws: a store that cannot be reached lets the stream's lock expire on its own.
   * `committed`: the text the request committed, decoded against by the stream's next window.
   */
  async release(admitted: AdmittedStream, committed?: string): Promise<void> {
    await this.store.release(admitted, committed).catch(() => undefined);
  }

  /** The health counters, as the store keeps them (every gateway's when they share Redis). */
  async counters(): Promise<Counters> {
    return this.store.counters().catch((error: unknown) => {
      throw unavailable(error);
    });
  }

  private bump(name: keyof Counters): void {
    this.store.count(name);
  }

  /** Queues one decode with its start deadline; maps failures to the contract (steps 13-14). */
  decode(
    request: InferenceRequest,
    audio: Float32Array,
    onProgress?: (progress: InferenceProgress) => void,
  ): Promise<InferenceResult> {
    const startDeadline = Date.now() + this.options.queueTimeoutMs;
    let abandon: (error: HttpError) => void = () => undefined;
    const abandoned = new Promise<never>((_resolve, reject) => {
      abandon = reject;
    });
    const job = Promise.race([
      this.queue.submit(request, audio, { startDeadline, ...(onProgress ? { onProgress } : {}) }).then(
        (result) => {
          this.bump('completed');
          this.onDecoded(result, request);
          return result;
        },
        (error: unknown) => {
          throw this.failure(error);
        },
      ),
      abandoned,
    ]);
    const tracked = job.catch(() => undefined);
    this.inflight.set(tracked, abandon);
    void tracked.finally(() => this.inflight.delete(tracked));
    return job;
  }

  private failure(error: unknown): HttpError {
    // Both backends reject with InferenceError only, the Redis one rebuilding it from the worker's reason.
    switch (error instanceof InferenceError ? error.code : 'inference_failed') {
      case 'queue_timeout':
        this.bump('queueTimeouts');
        return new HttpError(429, Messages.queueDeadline, { retryAfter: 1, code: 'queue_deadline' });
      case 'unsupported':
        return new HttpError(400, Messages.englishOnly);
      case 'unavailable':
        return unavailable(error);
      default:
        this.bump('failed');
        return new HttpError(500, Messages.inferenceFailed);
    }
  }

  /**
   * Graceful shutdown: waits up to `graceMs` for every queued or running decode to settle, then
   * answers those left with 503 `Service restarting` (their clients retry elsewhere). Resolves
   * with how many were answered that way.
   */
  async drain(graceMs = Number.POSITIVE_INFINITY): Promise<number> {
    const deadline = Date.now() + graceMs;
    while (this.inflight.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        if (Number.isFinite(deadline)) timer = setTimeout(resolve, deadline - Date.now());
      });
      await Promise.race([Promise.all([...this.inflight.keys()]), graceOver]);
      clearTimeout(timer);
    }
    const left = [...this.inflight.values()];
    for (const abandon of left) abandon(new HttpError(503, Messages.restarting, { retryAfter: 1 }));
    return left.length;
  }

  /** The health report; 503 while no worker is ready or the queue's backend is unreachable. */
  async health(): Promise<SpeechHealth> {
    // Both backends describe the engine as that of the first ready worker: status() already has
    // it, and on Redis each call is a SCAN and an MGET of its own.
    const status = await this.queue.status().catch((error: unknown) => {
      throw unavailable(error);
    });
    const ready = status.workers.filter((worker) => worker.ready);
    const engine = ready[0]?.engine;
    if (!engine) throw new HttpError(503, Messages.modelLoading, { retryAfter: 1 });
    const running = ready.reduce((sum, worker) => sum + worker.running, 0);
    const [sessions, counters, realtime] = await Promise.all([
      this.store.size(),
      this.store.counters(),
      this.options.realtime?.() ?? NO_REALTIME,
    ]).catch((error: unknown) => {
      throw unavailable(error);
    });
    return {
      ready: true,
      version: this.options.version,
      sample_rate: SAMPLE_RATE,
      max_seconds: MAX_CLIP_SECONDS,
      model: engine.model,
      device: engine.device,
      compute_type: engine.computeType,
      multilingual: engine.multilingual,
      languages: engine.languages,
      modes: engine.modes,
      translation_target: engine.translationTarget,
      busy: running > 0,
      completed: counters.completed,
      failed: counters.failed,
      max_streams: this.options.maxStreams,
      workers: clusterDecodeSlots(ready),
      threads_per_worker: engine.threadsPerSlot,
      beam_size: engine.beamSize,
      sessions,
      running,
      pending: status.pending,
      queue_timeout: this.options.queueTimeoutMs / 1000,
      rejected: counters.rejected,
      queue_timeouts: counters.queueTimeouts,
      backlog_seconds: Math.round(this.lag.maxBacklogSeconds() * 1000) / 1000,
      realtime,
    };
  }
}
