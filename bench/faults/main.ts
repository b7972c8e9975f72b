// `pnpm bench faults [--in-flight=N]`: the speech path on Redis under the faults a live event
// meets, every part a real process (gateway, workers, a private redis-server on a free port), on
// the synthetic base model with 11 s windows. Per fault: requests in flight, answered 200,
// answered 5xx, hung (no answer within 150 s, past every deadline), the longest client wait, and
// the time from the fault until /health answers 200 again. Figures only; nothing fails on them.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  queuedJobs,
  type RedisServer,
  startQueueStack,
  startRedisServer,
} from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { table } from '../lib/stats.js';

const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
};
const IN_FLIGHT = arg('in-flight', 4);
const HUNG_AFTER_MS = 150_000;
const MODEL = fileURLToPath(new URL('../../models/ggml-synthetic-base.bin', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 11 s of a 440 Hz tone as the native route's float32 body (not silent, so it is decoded). */
const WINDOW = (() => {
  const samples = new Float32Array(16000 * 11);
  for (let i = 0; i < samples.length; i++) samples[i] = 0.3 * Math.sin((2 * Math.PI * 440 * i) / 16000);
  return new Uint8Array(samples.buffer);
})();

interface Outcome {
  status: number | 'hung';
  ms: number;
}

async function transcribe(base: string, stream: string): Promise<Outcome> {
  const started = Date.now();
  try {
    const res = await fetch(`${base}/transcribe`, {
      method: 'POST',
      headers: {
        'X-Caption-Local': '1',
        'Content-Type': 'application/octet-stream',
        'X-Stream-ID': stream,
        'X-Request-ID': randomUUID(),
      },
      body: WINDOW,
      signal: AbortSignal.timeout(HUNG_AFTER_MS),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: Date.now() - started };
  } catch {
    return { status: 'hung', ms: Date.now() - started };
  }
}

async function healthy(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/health`, { signal: AbortSignal.timeout(2_000) })).status === 200;
  } catch {
    return false;
  }
}

/**
 * Polls /health from the fault on. `result()` waits for it to answer 200 again and tells how long
 * after the fault that was (the end of its last refusal), or that it never stopped answering 200.
 */
function watchHealth(base: string, since: number) {
  let lastRefusal: number | undefined;
  let ok = false;
  let stopped = false;
  const polling = (async () => {
    while (!stopped && Date.now() - since < HUNG_AFTER_MS) {
      ok = await healthy(base);
      if (!ok) lastRefusal = Date.now();
      await sleep(100);
    }
  })();
  return {
    async result(): Promise<string> {
      while (!ok && Date.now() - since < HUNG_AFTER_MS) await sleep(50);
      const answer = !ok
        ? 'never'
        : lastRefusal === undefined
          ? 'stayed 200'
          : ((lastRefusal - since) / 1000 + 0.1).toFixed(1);
      stopped = true;
      await polling;
      return answer;
    },
  };
}

const startStack = (redis: RedisServer, workerIds: string[], env: Record<string, string> = {}) =>
  startQueueStack({ redisUrl: redis.url, queuePrefix: 'bench-faults', model: MODEL, workerIds, env });

/** Resolves once all `count` requests are jobs in Redis (running or queued): all in flight. */
async function allQueued(inspector: Redis, queueName: string, count: number): Promise<void> {
  const jobs = async () =>
    (await inspector.llen(`bull:${queueName}:active`)) + (await queuedJobs(inspector, queueName));
  while ((await jobs()) < count) await sleep(20);
}

/** The worker running a job now (BullMQ records the worker's name on the job). */
async function activeHolder(inspector: Redis, queueName: string): Promise<string> {
  for (;;) {
    const [jobId] = await inspector.lrange(`bull:${queueName}:active`, 0, 0);
    const worker = jobId ? await inspector.hget(`bull:${queueName}:${jobId}`, 'pb') : null;
    if (worker) return worker;
    await sleep(20);
  }
}

type Row = (string | number)[];

function row(fault: string, outcomes: Outcome[], back: string): Row {
  const count = (test: (o: Outcome) => boolean) => outcomes.filter(test).length;
  const seconds = (ms: number) => (ms / 1000).toFixed(1);
  return [
    fault,
    outcomes.length,
    count((o) => o.status === 200),
    count((o) => typeof o.status === 'number' && o.status >= 500),
    count((o) => o.status === 'hung'),
    seconds(Math.max(...outcomes.map((o) => o.ms))),
    back,
  ];
}

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const inspector = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  inspector.on('error', () => undefined);
  const rows: Row[] = [];
  const streams = (tag: string) => Array.from({ length: IN_FLIGHT }, (_, i) => `${tag}-${i}-${randomUUID()}`);

  {
    const stack = await startStack(redis, ['worker-a', 'worker-b']);
    const answers = streams('kill').map((stream) => transcribe(stack.base, stream));
    await allQueued(inspector, stack.queueName, IN_FLIGHT);
    const holder = await activeHolder(inspector, stack.queueName);
    const fault = Date.now();
    stack.workers.get(holder)!.child.kill('SIGKILL');
    const health = watchHealth(stack.base, fault);
    const outcomes = await Promise.all(answers);
    rows.push(row('worker SIGKILL mid-decode (1 of 2 left)', outcomes, await health.result()));
    await stack.stop();
  }
  {
    const stack = await startStack(redis, ['worker-a', 'worker-b']);
    const answers = streams('restart').map((stream) => transcribe(stack.base, stream));
    await allQueued(inspector, stack.queueName, IN_FLIGHT);
    const fault = Date.now();
    await redis.kill();
    const health = watchHealth(stack.base, fault);
    await sleep(1_000);
    await redis.start();
    const outcomes = await Promise.all(answers);
    rows.push(row('Redis restarted, empty (1 s down)', outcomes, await health.result()));
    await stack.stop();
  }
  {
    const stack = await startStack(redis, ['worker-a', 'worker-b']);
    const answers = streams('outage').map((stream) => transcribe(stack.base, stream));
    await allQueued(inspector, stack.queueName, IN_FLIGHT);
    const fault = Date.now();
    await redis.kill();
    const health = watchHealth(stack.base, fault);
    await sleep(500);
    const refused = await Promise.all(streams('during').map((stream) => transcribe(stack.base, stream)));
    await sleep(10_000);
    await redis.start();
    const outcomes = await Promise.all(answers);
    rows.push(row('Redis down 10 s: requests in flight', outcomes, await health.result()));
    rows.push(row('Redis down 10 s: new requests during it', refused, '(same)'));
    await stack.stop();
  }
  {
    const stack = await startStack(redis, ['worker-a'], { CAPTION_SHUTDOWN_TIMEOUT: '5' });
    stack.workers.get('worker-a')!.child.kill('SIGSTOP');
    const answers = streams('sigterm').map((stream) => transcribe(stack.base, stream));
    await allQueued(inspector, stack.queueName, IN_FLIGHT);
    await redis.kill();
    await sleep(500);
    const fault = Date.now();
    stack.gateway.child.kill('SIGTERM');
    const outcomes = await Promise.all(answers);
    const code = await stack.gateway.exited;
    rows.push(
      row(
        'SIGTERM during a Redis outage (5 s grace)',
        outcomes,
        `exited ${code} after ${((Date.now() - fault) / 1000).toFixed(1)} s`,
      ),
    );
    await stack.stop();
    await redis.start();
  }

  inspector.disconnect();
  await redis.stop();
  console.log(
    table(['fault', 'in flight', '200', '5xx', 'hung', 'longest wait s', '/health 200 again after s'], rows),
  );
}

await main();
