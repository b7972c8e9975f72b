/**
 * The calendar for harnesses that run it inside their own process (the benchmark): the app, the
 * database with its migrations and seed, and the listing query it times on its own.
 */
export { openDatabase } from './adapters/db.js';
export { eventListSql } from './adapters/event-query.js';
export { migrate } from './adapters/migrations.js';
export { seedEvents } from './adapters/seed.js';
export { parseTokens } from './adapters/tokens.js';
export { buildApp } from './app.js';
export { viewerOf } from './domain/auth.js';
export { dateBounds } from './domain/listing.js';
