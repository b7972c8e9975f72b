#!/usr/bin/env node
// `pnpm start`: the whole stack on one machine with embedded defaults, no Docker. Generates the
// local secrets once (never overwriting), then runs each built service as a child process with
// prefixed output. With REDIS_URL set, a separate inference worker takes the jobs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const secrets = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/secrets-init.ts')], {
  cwd: root,
  stdio: 'inherit',
});
if (secrets.status !== 0) process.exit(secrets.status ?? 1);

const services = [
  { name: 'speech', url: 'http://127.0.0.1:8765/' },
  { name: 'relay', url: 'ws://127.0.0.1:8080/ws' },
  { name: 'ui', url: 'http://127.0.0.1:8081/' },
  { name: 'calendar', url: 'http://127.0.0.1:8082/wp-json/cal/events/v1/events' },
  ...(process.env.REDIS_URL ? [{ name: 'worker', url: process.env.REDIS_URL }] : []),
].filter((service) => existsSync(join(root, 'services', service.name, 'dist/index.js')));

const children = new Map();
let stopping = false;

function stop(code) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  for (const child of children.values()) child.kill('SIGTERM');
}

for (const service of services) {
  const child = spawn(process.execPath, [join(root, 'services', service.name, 'dist/index.js')], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(service.name, child);
  const prefix = `${service.name.padEnd(8)} |`;
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) console.log(`${prefix} ${line}`);
    });
  }
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    if (!stopping) {
      console.error(`${prefix} exited (${signal ?? code}); stopping the stack`);
      stop(code || 1);
    }
  });
  console.log(`${prefix} starting: ${service.url}`);
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
