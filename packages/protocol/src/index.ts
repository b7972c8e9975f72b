export * from './health.js';
export * from './jobs.js';
export * from './languages.js';
export * from './outputs.js';
export * from './relay.js';
export * from './relay-frames.js';
export * from './site-config.js';
export * from './speech.js';
