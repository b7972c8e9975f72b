/**
 * The operator's steps the smoke test takes before starting the services: `make secrets` for the
 * hosts of an env file, the pages the UI serves, and the calendar's database (dropped again after).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnvFile } from '@live-captions/runtime';
import { pg } from './clients.js';
import { repoRoot } from './compose.js';

/** `make secrets` for the hosts of `envFile` into `secretsDir`; returns the gateway's API key. */
export function makeSecrets(envFile: string, secretsDir: string): string {
  const made = spawnSync('make', ['secrets', `ENV_FILE=${envFile}`, `SECRETS_DIR=${secretsDir}`], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, COREPACK_INTEGRITY_KEYS: '0' },
  });
  if (made.status !== 0) throw new Error(`make secrets failed: ${made.stdout}${made.stderr}`);
  return parseEnvFile(readFileSync(join(secretsDir, 'caption-local.env'), 'utf8')).CAPTION_API_KEY!;
}

/** The UI serves the pages @live-captions/web builds (its image builds them too). */
export function buildPagesOnce(): void {
  if (existsSync(join(repoRoot, 'packages/web/dist/pages/ui/editor.html'))) return;
  const built = spawnSync(process.execPath, ['--import', 'tsx', 'packages/web/src/cli.ts'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`building the pages failed: ${built.stderr}`);
}

/** Runs `sql` as the admin of the PostgreSQL at 127.0.0.1:`port`. */
async function asAdmin(port: number, sql: string): Promise<void> {
  const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  await admin.query(sql);
  await admin.end();
}

/** Creates `database` on the PostgreSQL at 127.0.0.1:`port`. */
export async function createDatabase(port: number, database: string): Promise<void> {
  await asAdmin(port, `CREATE DATABASE ${database}`);
}

/** Drops `database` (if it was created), closing what still uses it. */
export async function dropDatabase(port: number, database: string): Promise<void> {
  await asAdmin(port, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
}
