/**
 * Two gateways (real processes) on one Redis answer as one: stream busy locks, the retry cache,
 * DELETE, `max_streams` and the health counters are shared, and a gateway that dies holds its
 * streams no longer than the lock TTL. A private redis-server; one worker decodes for both.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  GATEWAY_ENTRY,
  gatewayPort,
  killAll,
  type RedisServer,
  type ServiceProcess,
  startRedisServer,
  startServiceProcess,
  WORKER_ENTRY,
} from '@live-captions/test-services';
import { repoRoot, until } from './helpers/gateway.js';
import { openUpload } from './helpers/uploads.js';
import { pcmBody, sine } from './helpers/wav.js';

const MODEL = join(repoRoot, 'models/ggml-synthetic-tiny.bin');
const window = pcmBody(sine(16000, 2, 440, 0.3));
const local = { 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' };

let redis: RedisServer;
let worker: ServiceProcess;
const gateways: ServiceProcess[] = [];
let A: { proc: ServiceProcess; port: number };
let B: { proc: ServiceProcess; port: number };
const queueName = `replicas-${randomUUID()}`;

async function startGateway(): Promise<{ proc: ServiceProcess; port: number }> {
  const proc = startServiceProcess(GATEWAY_ENTRY, {
    REDIS_URL: redis.url,
    CAPTION_QUEUE_NAME: queueName,
    CAPTION_MODEL: MODEL,
    CAPTION_MAX_STREAMS: '3',
  });
  gateways.push(proc);
  const port = await gatewayPort(proc);
  await until(async () => (await health(port)).status === 200, 'a ready gateway', 60_000, 200);
  return { proc, port };
}

async function health(port: number): Promise<{ status: number; body: Record<string, number> }> {
  const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
  return res
    ? { status: res.status, body: (await res.json()) as Record<string, number> }
    : { status: 0, body: {} };
}

async function send(port: number, stream: string, requestId: string = randomUUID(), body = window) {
  const res = await fetch(`http://127.0.0.1:${port}/transcribe`, {
    method: 'POST',
    headers: { ...local, 'X-Stream-ID': stream, 'X-Request-ID': requestId },
    body: new Uint8Array(body),
  });
  return { status: res.status, text: await res.text() };
}

function closeStream(port: number, stream: string) {
  return fetch(`http://127.0.0.1:${port}/streams/${stream}`, {
    method: 'DELETE',
    headers: { 'X-Caption-Local': '1' },
  });
}

/**
 * A native upload on `port` that sent 8 bytes and waits: its stream is busy meanwhile. Resolves
 * once `seenFrom` (another gateway) sees the lock: its DELETE is refused as busy.
 */
async function hold(port: number, stream: string, seenFrom: number) {
  const upload = openUpload(
    port,
    'POST',
    '/transcribe',
    { ...local, 'X-Stream-ID': stream },
    Buffer.alloc(8),
  );
  await until(
    async () => (await closeStream(seenFrom, stream)).status === 409,
    'the lock seen by the other gateway',
  );
  return upload;
}

beforeAll(async () => {
  redis = await startRedisServer();
  worker = startServiceProcess(WORKER_ENTRY, {
    REDIS_URL: redis.url,
    CAPTION_QUEUE_NAME: queueName,
    CAPTION_MODEL: MODEL,
  });
  [A, B] = await Promise.all([startGateway(), startGateway()]);
}, 120_000);

afterAll(async () => {
  await killAll([...gateways, worker]);
  await redis.stop();
});

describe('two gateways on one Redis', () => {
  jest.setTimeout(90_000);

  it('a stream busy on A is 429 on B, and free again on B once A answered', async () => {
    const held = await hold(A.port, 'stream-shared-busy', B.port);
    const busy = await send(B.port, 'stream-shared-busy');
    expect(busy.status).toBe(429);
    expect(JSON.parse(busy.text).detail).toBe('Stream busy; retry shortly');
    held.end(window.subarray(8));
    expect((await held.response).status).toBe(200);
    expect((await send(B.port, 'stream-shared-busy')).status).toBe(200);
  });

  it("a retried request ID on B gets A's cached answer; other audio under it is 409", async () => {
    const requestId = `retry-${randomUUID()}`;
    const first = await send(A.port, 'stream-shared-cache', requestId);
    expect(first.status).toBe(200);
    const completed = (await health(A.port)).body.completed;
    const retried = await send(B.port, 'stream-shared-cache', requestId);
    expect(retried).toEqual(first);
    // Served from the cache: nothing was decoded again.
    expect((await health(B.port)).body.completed).toBe(completed);
    const other = pcmBody(sine(16000, 2, 660, 0.3));
    expect((await send(B.port, 'stream-shared-cache', requestId, other)).status).toBe(409);
  });

  it('DELETE on B closes a session A created (and refuses a busy one)', async () => {
    expect((await send(A.port, 'stream-shared-close')).status).toBe(200);
    const held = await hold(A.port, 'stream-shared-close', B.port);
    const refused = await closeStream(B.port, 'stream-shared-close');
    expect(refused.status).toBe(409);
    expect((await refused.json()).detail).toBe('Finish pending audio before closing a stream');
    held.end(window.subarray(8));
    await held.response;
    const closed = await closeStream(B.port, 'stream-shared-close');
    expect(closed.status).toBe(200);
    expect(await closed.json()).toEqual({ closed: 'stream-shared-close' });
  });

  it('max_streams counts the sessions of both gateways', async () => {
    // The earlier tests' idle sessions count until they expire: close them first.
    for (const id of ['stream-shared-busy', 'stream-shared-cache']) {
      await fetch(`http://127.0.0.1:${A.port}/streams/${id}`, {
        method: 'DELETE',
        headers: { 'X-Caption-Local': '1' },
      });
    }
    expect((await health(A.port)).body.sessions).toBe(0);
    expect((await send(A.port, 'stream-cap-1')).status).toBe(200);
    expect((await send(B.port, 'stream-cap-2')).status).toBe(200);
    expect((await send(A.port, 'stream-cap-3')).status).toBe(200);
    const full = await send(B.port, 'stream-cap-4');
    expect(full.status).toBe(429);
    expect(JSON.parse(full.text).detail).toBe(
      'Gateway stream capacity reached (CAPTION_MAX_STREAMS); idle sessions expire after 120 seconds',
    );
    expect((await health(B.port)).body.sessions).toBe(3);
    for (const id of ['stream-cap-1', 'stream-cap-2', 'stream-cap-3']) {
      await fetch(`http://127.0.0.1:${B.port}/streams/${id}`, {
        method: 'DELETE',
        headers: { 'X-Caption-Local': '1' },
      });
    }
  });

  it('a gateway that dies holds its streams no longer than the lock TTL', async () => {
    await hold(A.port, 'stream-orphaned', B.port);
    A.proc.child.kill('SIGKILL');
    const killed = Date.now();
    await until(
      async () => (await send(B.port, 'stream-orphaned')).status === 200,
      'the lock to expire',
      40_000,
      250,
    );
    // The lock lives 15 s: generous bound, not a target.
    expect(Date.now() - killed).toBeLessThan(30_000);
  });
});
