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
  workers: number;
  threadsPerWorker: number;
  beamSize: number;
}

/** A worker's live figures, announced through Redis with a heartbeat TTL. */
export interface WorkerStatus {
  id: string;
  host: string;
  pid: number;
  engine: EngineInfo;
  ready: boolean;
  /** Decodes running now. */
  running: number;
  completed: number;
  failed: number;
  /** Jobs refused because their queue deadline had passed. */
  queueTimeouts: number;
  startedAt: number;
  updatedAt: number;
}

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
}
