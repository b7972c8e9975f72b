#!/usr/bin/env node
// `pnpm bench [name...]`: runs bench/<name>/main.ts for each name, or every benchmark when none
// is given. Benchmarks print figures and ratios; they never fail on timings.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const all = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(here, entry.name, 'main.ts')))
  .map((entry) => entry.name)
  .sort();
const names = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const flags = process.argv.slice(2).filter((arg) => arg.startsWith('-'));

for (const name of names.length > 0 ? names : all) {
  if (!all.includes(name)) {
    console.error(`Unknown benchmark "${name}". Available: ${all.join(', ') || '(none)'}`);
    process.exit(2);
  }
  console.log(`\n### bench ${name}\n`);
  // Workspace packages from their sources (their `@live-captions/source` export condition).
  const node = ['--conditions=@live-captions/source', '--import', 'tsx'];
  const run = spawnSync(process.execPath, [...node, join(here, name, 'main.ts'), ...flags], {
    stdio: 'inherit',
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
