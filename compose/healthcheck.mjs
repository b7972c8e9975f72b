#!/usr/bin/env node
// Container health check of our HTTP services (copied to /app/healthcheck.mjs). Node built-ins
// only: the runtime images carry no curl or wget. The worker, which serves no HTTP, has its own
// check built with it (services/worker/src/health.ts).
//
//   node healthcheck.mjs http <url>   exit 0 when GET <url> answers 200 within 4 s

const TIMEOUT_MS = 4000;

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

const [mode, target] = process.argv.slice(2);
try {
  if (mode === 'http') await checkHttp(target);
  else fail('usage: healthcheck.mjs http <url>');
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
