/**
 * The gateway for harnesses that run it inside their own process (the benchmarks): the app, its
 * configuration, the realtime route's VAD and the streams on Redis, as `src/index.ts` wires
 * them for the service.
 */
export { createRedisStreamStore } from './adapters/redis-stream-store.js';
export { sileroVad, type VadSource } from './adapters/vad.js';
export { createApp } from './app.js';
export { loadConfig } from './config.js';
