export * from './health.js';
export * from './job-schemas.js';
export * from './jobs.js';
export * from './languages.js';
export * from './relay.js';
export * from './relay-frames.js';
export * from './site-config.js';
export * from './speech.js';
