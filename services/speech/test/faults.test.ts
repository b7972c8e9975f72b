/**
 * The speech path on Redis under faults, with every part a real process: the gateway
 * (services/speech), workers (services/worker) and a private redis-server on a free port (never
 * the shared one: this file kills it). Every request is answered, none hangs, and every stream is
 * usable afterwards.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  type QueueStack,
  queuedJobs,
  type RedisServer,
  type ServiceProcess as Started,
  startQueueStack,
  startRedisServer,
} from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { repoRoot, until } from './helpers/gateway.js';
import { pcmBody, sine } from './helpers/wav.js';

const MODEL = join(repoRoot, 'models/ggml-synthetic-base.bin');

interface Answer {
  status: number;
  body: Record<string, unknown>;
  retryAfter: string | null;
  ms: number;
}

/** A native window of `seconds` of tone on `streamId`; fetch, so several can be in flight. */
async function transcribe(base: string, streamId: string, seconds = 11): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${base}/transcribe`, {
    method: 'POST',
    headers: {
      'X-Caption-Local': '1',
      'Content-Type': 'application/octet-stream',
      'X-Stream-ID': streamId,
      'X-Request-ID': randomUUID(),
    },
    body: new Uint8Array(pcmBody(sine(16000, seconds, 440, 0.3))),
  });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started };
}

async function health(base: string): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${base}/health`);
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started };
}

let redis: RedisServer;
let inspector: Redis;
const stacks: Stack[] = [];
type Stack = QueueStack;

async function startStack(workerIds: string[], env: Record<string, string> = {}): Promise<Stack> {
  const stack = await startQueueStack({
    redisUrl: redis.url,
    queuePrefix: 'faults',
    model: MODEL,
    workerIds,
    env,
  });
  stacks.push(stack);
  return stack;
}

/** The job a worker is running now, and which worker (BullMQ records the worker's name). */
async function activeJob(stack: Stack, notBy?: string): Promise<{ jobId: string; worker: string }> {
  let found: { jobId: string; worker: string } | undefined;
  await until(
    async () => {
      const [jobId] = await inspector.lrange(`bull:${stack.queueName}:active`, 0, 0);
      if (!jobId) return false;
      const worker = await inspector.hget(`bull:${stack.queueName}:${jobId}`, 'pb');
      if (!worker || worker === notBy) return false;
      found = { jobId, worker };
      return true;
    },
    'a running job',
    30_000,
  );
  return found!;
}

/** No library output on stderr/stdout, and each line is JSON (one structured line per event). */
function expectCleanLogs(proc: Started): void {
  expect(proc.output()).not.toMatch(/\[ioredis\]|Unhandled error event/);
  const lines = proc.output().split('\n').filter(Boolean);
  expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
}

beforeAll(async () => {
  redis = await startRedisServer();
  inspector = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
  inspector.on('error', () => undefined);
});

afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.stop()));
  if (!redis.running) await redis.start();
});

afterAll(async () => {
  inspector.disconnect();
  await redis.stop();
});

describe('speech path faults (gateway, workers and Redis as processes)', () => {
  // Processes load the base-size synthetic model; a busy CI machine makes this slow.
  jest.setTimeout(240_000);

  it('a worker killed mid-decode: another worker decodes the job again and the client gets its 200', async () => {
    const stack = await startStack(['worker-a', 'worker-b']);
    const answer = transcribe(stack.base, 'stream-worker-kill');
    const { worker } = await activeJob(stack);
    stack.workers.get(worker)!.child.kill('SIGKILL');

    const result = await answer;
    expect(result.status).toBe(200);
    expect(result.body.text).toBe('test');
    // Lock (8 s) + stalled check (4 s) + a second decode: generous bound, not a target.
    expect(result.ms).toBeLessThan(45_000);
    // The stream was released: the next window on it is served.
    expect((await transcribe(stack.base, 'stream-worker-kill', 2)).status).toBe(200);

    const retried = stack.gateway.logLines(/job retried: its worker stopped/);
    expect(retried).toHaveLength(1);
    expect(typeof retried[0]!.correlationId).toBe('string');
    expectCleanLogs(stack.gateway);
  });

  it('a job that kills two workers fails as poison (500), and its stream stays usable', async () => {
    const stack = await startStack(['worker-a', 'worker-b', 'worker-c']);
    const answer = transcribe(stack.base, 'stream-poison');
    const first = await activeJob(stack);
    stack.workers.get(first.worker)!.child.kill('SIGKILL');
    const second = await activeJob(stack, first.worker);
    expect(second.jobId).toBe(first.jobId);
    stack.workers.get(second.worker)!.child.kill('SIGKILL');

    const result = await answer;
    expect(result.status).toBe(500);
    expect(result.body.detail).toBe('Transcription failed; pending audio can be retried');
    expect(result.ms).toBeLessThan(60_000);
    expect((await transcribe(stack.base, 'stream-poison', 2)).status).toBe(200);
    expect(stack.gateway.logLines(/job failed: it stopped two workers/)).toHaveLength(1);
  });

  it('Redis restarted (no persistence) under 3 requests, running and queued: all answered 200', async () => {
    const stack = await startStack(['worker-a']);
    const streams = ['stream-restart-1', 'stream-restart-2', 'stream-restart-3'];
    const answers = streams.map((stream) => transcribe(stack.base, stream));
    await activeJob(stack);
    await until(async () => (await queuedJobs(inspector, stack.queueName)) === 2, '2 queued jobs');

    await redis.kill();
    await until(() => stack.gateway.logLines(/redis connection lost/).length === 1, 'the gateway to notice');
    await redis.start();

    const results = await Promise.all(answers);
    expect(results.map((result) => result.status)).toEqual([200, 200, 200]);
    for (const result of results) expect(result.ms).toBeLessThan(90_000);
    // The worker announced itself again without a restart.
    await stack.ready(1);
    for (const stream of streams) expect((await transcribe(stack.base, stream, 2)).status).toBe(200);

    expect(stack.gateway.logLines(/redis connection lost/)).toHaveLength(1);
    expect(stack.gateway.logLines(/redis connection restored/)).toHaveLength(1);
    const resubmitted = stack.gateway.logLines(/job resubmitted: Redis lost it/);
    expect(resubmitted.length).toBeGreaterThanOrEqual(1);
    expect(resubmitted.length).toBeLessThanOrEqual(3);
    for (const line of resubmitted) expect(typeof line.correlationId).toBe('string');
    expectCleanLogs(stack.gateway);
    expectCleanLogs(stack.workers.get('worker-a')!);
  });

  it('Redis down: health and new requests answer 503 at once; SIGTERM answers the one in flight and exits 0', async () => {
    const stack = await startStack(['worker-a'], { CAPTION_SHUTDOWN_TIMEOUT: '2' });
    const worker = stack.workers.get('worker-a')!;
    // A frozen worker leaves the request queued in Redis (its announcement lives a few seconds).
    worker.child.kill('SIGSTOP');
    const inFlight = transcribe(stack.base, 'stream-in-flight');
    await until(async () => (await queuedJobs(inspector, stack.queueName)) === 1, 'the queued job');

    await redis.kill();
    await until(() => stack.gateway.logLines(/redis connection lost/).length === 1, 'the gateway to notice');
    const report = await health(stack.base);
    expect(report.status).toBe(503);
    expect(report.body.detail).toBe('Inference workers unavailable; retry shortly');
    expect(String(report.body.reason)).toMatch(/redis unreachable/);
    expect(report.retryAfter).toBe('1');
    expect(report.ms).toBeLessThan(5_000);

    const refused = await transcribe(stack.base, 'stream-new', 2);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('1');
    expect(refused.ms).toBeLessThan(5_000);

    const stopping = Date.now();
    stack.gateway.child.kill('SIGTERM');
    const answered = await inFlight;
    expect(answered.status).toBe(503);
    expect(answered.body.detail).toBe('Service restarting');
    expect(answered.retryAfter).toBe('1');
    expect(await stack.gateway.exited).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(20_000);
    expect(stack.gateway.logLines(/shutdown grace over/)).toHaveLength(1);
    expectCleanLogs(stack.gateway);
  });
});
