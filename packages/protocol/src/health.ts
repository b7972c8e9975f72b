import type { TaskMode } from './jobs.js';

/** What a worker knows about itself and the gateway's health report needs. */
export interface EngineInfo {
  /** Model name as clients see it (e.g. `base`, `tiny.en`, or the file's base name). */
  model: string;
  device: 'cpu' | 'cuda';
  /** whisper.cpp weight type of the loaded file (`f16`, `f32`, `q5_1`, ...). */
  computeType: string;
  multilingual: boolean;
  languages: string[];
  modes: TaskMode[];
  translationTarget: 'en' | null;
  decodeSlots: number;
  threadsPerSlot: number;
  beamSize: number;
}

/**
 * A worker's live figures, announced through Redis with a heartbeat TTL. The gateway reads the
 * engine, readiness and running decodes; `completed` and `queueTimeouts` are the worker's own
 * counts (its metrics are the operators' view of them), copied here so that a job can be shown
 * not to have run; the health report's counters are the gateway's.
 */
export interface WorkerStatus {
  id: string;
  engine: EngineInfo;
  ready: boolean;
  /** Decodes running now. */
  running: number;
  /** Jobs decoded. */
  completed: number;
  /** Jobs refused because their queue deadline had passed. */
  queueTimeouts: number;
  /** The gateway takes the engine of the longest-running ready worker. */
  startedAt: number;
  /** When this announcement was written (each heartbeat). */
  updatedAt: number;
}

/**
 * Whether `/v1/realtime` can open a session now: it needs the VAD model, and `reason` says why
 * not (the capture page then offers only rolling windows).
 */
export type RealtimeAvailability = { available: true; reason: null } | { available: false; reason: string };

/** `GET /health` of the speech gateway (200 only when ready). */
export interface SpeechHealth {
  ready: boolean;
  version: string;
  sample_rate: 16000;
  max_seconds: 12;
  model: string;
  device: string;
  compute_type: string;
  multilingual: boolean;
  languages: string[];
  modes: TaskMode[];
  translation_target: 'en' | null;
  busy: boolean;
  completed: number;
  failed: number;
  max_streams: number;
  workers: number;
  threads_per_worker: number;
  beam_size: number;
  sessions: number;
  running: number;
  pending: number;
  queue_timeout: number;
  rejected: number;
  queue_timeouts: number;
  /** Largest backlog of a live stream on this gateway: seconds captured but not yet captioned. */
  backlog_seconds: number;
  /** The realtime transport: whether it can be used now, and why not. */
  realtime: RealtimeAvailability;
}
