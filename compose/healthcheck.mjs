#!/usr/bin/env node
// Container health checks for our images (copied to /app/healthcheck.mjs). Node built-ins only:
// the runtime images carry no curl, wget or redis-cli.
//
//   node healthcheck.mjs http <url>   exit 0 when GET <url> answers 200 within 4 s
//   node healthcheck.mjs worker       exit 0 while this worker's heartbeat key lives in Redis
//                                     (REDIS_URL, CAPTION_QUEUE_NAME, WORKER_ID or the hostname)
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { connect as tlsConnect } from 'node:tls';

const TIMEOUT_MS = 4000;
const DEFAULT_QUEUE_NAME = 'captions-inference';

function fail(message) {
  console.error(`unhealthy: ${message}`);
  process.exit(1);
}

async function checkHttp(url) {
  if (!url) fail('usage: healthcheck.mjs http <url>');
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  await response.arrayBuffer();
  if (response.status !== 200) fail(`${url} answered ${response.status}`);
}

/** One RESP command over a fresh connection; resolves with the first reply line. */
function redisCommand(redisUrl, args) {
  const url = new URL(redisUrl);
  const port = Number(url.port || 6379);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const socket =
    url.protocol === 'rediss:' ? tlsConnect({ host, port, servername: host }) : connect({ host, port });
  const encode = (parts) =>
    `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;
  const commands = [];
  if (url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    commands.push(user ? ['AUTH', user, password] : ['AUTH', password]);
  }
  const db = url.pathname.replace(/^\//, '');
  if (db) commands.push(['SELECT', db]);
  commands.push(args);
  return new Promise((resolve, reject) => {
    let buffer = '';
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error('Redis timed out')));
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      const lines = buffer.split('\r\n');
      if (lines.length <= commands.length) return;
      socket.end();
      const failed = lines.slice(0, commands.length).find((line) => line.startsWith('-'));
      if (failed) reject(new Error(`Redis: ${failed.slice(1)}`));
      else resolve(lines[commands.length - 1]);
    });
    socket.once(url.protocol === 'rediss:' ? 'secureConnect' : 'connect', () => {
      socket.write(commands.map(encode).join(''));
    });
  });
}

async function checkWorker() {
  const redisUrl = process.env.REDIS_URL;
  if (!redisUrl) fail('REDIS_URL is not set');
  const queue = process.env.CAPTION_QUEUE_NAME || DEFAULT_QUEUE_NAME;
  const id = process.env.WORKER_ID || hostname();
  // Key layout of packages/inference/src/redis/keys.ts: renewed every 2 s, expires after 6 s.
  const reply = await redisCommand(redisUrl, ['EXISTS', `captions:${queue}:worker:${id}`]);
  if (reply !== ':1') fail(`worker ${id} has no live heartbeat in Redis (model still loading?)`);
}

const [mode, target] = process.argv.slice(2);
try {
  if (mode === 'http') await checkHttp(target);
  else if (mode === 'worker') await checkWorker();
  else fail('usage: healthcheck.mjs http <url> | worker');
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
