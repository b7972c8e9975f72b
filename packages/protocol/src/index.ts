export * from './health.js';
export * from './jobs.js';
export * from './languages.js';
export * from './relay.js';
export * from './relay-frames.js';
