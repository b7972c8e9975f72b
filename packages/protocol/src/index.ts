export * from './health.js';
export * from './jobs.js';
export * from './relay.js';
