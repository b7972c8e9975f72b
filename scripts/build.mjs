#!/usr/bin/env node
// `pnpm build`, and the first step of `pnpm start`: compiles every package and service with
// `tsc -b` over the project references of tsconfig.build.json (only the projects whose sources or
// dependencies changed; nothing at all when nothing did), then bundles the web pages when one of
// their sources changed (packages/web/src/cli.ts keeps the list of inputs).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * Runs a command in the repository root; resolves with its exit code (1 when a signal ended it).
 * `stdout` is where its standard output goes: 'inherit', or 2 to keep ours for other lines.
 */
export function run(command, args, { env = process.env, stdout = 'inherit', onChild } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['inherit', stdout, 'inherit'] });
    onChild?.(child);
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** Both build steps; resolves with the first failing exit code, or 0. */
export async function build(options = {}) {
  const compiled = await run(process.execPath, [tsc, '-b', 'tsconfig.build.json'], options);
  if (compiled !== 0) return compiled;
  return run(process.execPath, ['packages/web/dist/cli.js'], options);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await build();
}
