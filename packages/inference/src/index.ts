export { type EngineConfig, engineConfigFor, loadEngineConfig, VAD_OFF } from './config.js';
export {
  compressionRatio,
  cutLoops,
  DEFAULT_GUARDS,
  type GuardReport,
  type GuardSettings,
  guardSegments,
  isKnownPhrase,
} from './domain/guards/index.js';
export { isSilent } from './domain/pcm.js';
export { checkSupported, runInferenceJob } from './domain/run-job.js';
export { cutWords, groupWords } from './domain/word-cut.js';
export { prepareVadFile } from './engine/model-file.js';
export { EnginePool } from './engine/pool.js';
export { WATCHDOG_MS } from './engine/watchdog.js';
export { createInProcessQueue, type InProcessQueueOptions } from './in-process-queue.js';
export { InferenceError, type InferenceQueue, type QueueStatus, type SubmitOptions } from './queue.js';
export { type HeartbeatCheck, workerHeartbeatLives } from './redis/heartbeat.js';
export { createRedisQueue, type RedisInferenceQueue, type RedisQueueOptions } from './redis/redis-queue.js';
export { type RedisWorkerOptions, type RunningWorker, startRedisWorker } from './redis/worker-runner.js';
