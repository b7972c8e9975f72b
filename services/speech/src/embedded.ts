/**
 * The gateway for harnesses that run it inside their own process (the benchmarks): the app, its
 * configuration and the realtime route's VAD, as `src/index.ts` wires them for the service.
 */
export { sileroVad } from './adapters/vad.js';
export { createApp } from './app.js';
export { loadConfig } from './config.js';
