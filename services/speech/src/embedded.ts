/**
 * The gateway for harnesses that run it inside their own process (the benchmarks): the app, its
 * configuration, the realtime route's VAD and the Redis stream sessions, as `src/index.ts` wires
 * them for the service.
 */
export { createRedisSessionStore } from './adapters/redis-sessions.js';
export { sileroVad, type VadSource } from './adapters/vad.js';
export { createApp } from './app.js';
export { loadConfig } from './config.js';
