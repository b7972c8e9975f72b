import { resolve } from 'node:path';
import { openDatabase } from '../adapters/db.js';
import { loadConfig } from '../config.js';

/**
 * The database the service would use. Relative data dirs are read from where pnpm was invoked
 * (INIT_CWD), so `pnpm calendar:seed` at the repository root fills the `./data/calendar` that
 * `pnpm start` opens.
 */
export async function openConfiguredDatabase() {
  const config = loadConfig();
  const base = process.env.INIT_CWD ?? process.cwd();
  const db = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: resolve(base, config.CALENDAR_DATA_DIR),
    poolSize: 2,
  });
  return { config, db };
}
