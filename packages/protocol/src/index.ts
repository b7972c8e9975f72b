export * from './health.js';
export * from './jobs.js';
