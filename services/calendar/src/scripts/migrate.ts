import { migrate } from '../adapters/migrations.js';
import { readTokens } from '../adapters/tokens.js';
import { openConfiguredDatabase } from './cli.js';

// `pnpm migrate`: applies the pending migrations to DATABASE_URL (or the embedded PGlite).
const { config, db } = await openConfiguredDatabase();
try {
  const applied = await migrate(db.knex, [...readTokens(config.CALENDAR_TOKENS_FILE).values()]);
  console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'already up to date');
} finally {
  await db.close();
}
