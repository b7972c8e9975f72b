import { migrate } from '../adapters/migrations.js';
import { openConfiguredDatabase } from './cli.js';

// `pnpm migrate`: applies the pending migrations to DATABASE_URL (or the embedded PGlite).
const { db } = await openConfiguredDatabase();
try {
  const applied = await migrate(db.knex);
  console.log(applied.length > 0 ? `applied: ${applied.join(', ')}` : 'already up to date');
} finally {
  await db.close();
}
