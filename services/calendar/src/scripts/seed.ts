import { migrate } from '../adapters/migrations.js';
import { seedEvents } from '../adapters/seed.js';
import { readTokens } from '../adapters/tokens.js';
import { openConfiguredDatabase } from './cli.js';

// `pnpm calendar:seed N`: N realistic events with venues, organizers and terms.
const count = Number(process.argv[2] ?? 100);
if (!Number.isInteger(count) || count < 1) {
  console.error('usage: pnpm calendar:seed N   (N a positive whole number)');
  process.exit(2);
}
const { config, db } = await openConfiguredDatabase();
try {
  await migrate(db.knex, [...readTokens(config.CALENDAR_TOKENS_FILE).values()]);
  const started = Date.now();
  await seedEvents(db.knex, count, { timezone: config.CALENDAR_TIMEZONE });
  console.log(`seeded ${count} events into ${db.kind} in ${Date.now() - started} ms`);
} finally {
  await db.close();
}
