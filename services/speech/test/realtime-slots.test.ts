/**
 * Realtime re-decodes (deltas) use idle decode slots only, counted over every ready worker: with
 * Redis and two worker processes of one slot each, a gateway with one realtime decode running
 * still has a slot for a re-decode (the first worker's own engine says one slot).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisQueue, type RedisInferenceQueue, startRedisWorker } from '@live-captions/inference';
import { createLogger } from '@live-captions/runtime';
import request from 'supertest';
import { WebSocket } from 'ws';
import { DEFAULT_SETTINGS } from '../src/domain/realtime/settings.js';
import { realtimePorts } from '../src/routes/realtime-ports.js';
import {
  deleteKeys,
  engineConfig,
  REDIS_URL,
  type RunningGateway,
  startGateway,
  until,
} from './helpers/gateway.js';
import { sine } from './helpers/wav.js';

const queueName = `speech-test-${randomUUID()}`;
let queue: RedisInferenceQueue;
let gateway: RunningGateway;
const workers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  for (const id of ['slots-a', 'slots-b']) {
    workers.push(
      await startRedisWorker({
        redisUrl: REDIS_URL,
        engine: engineConfig('tiny', { queueName, decodeSlots: 1 }),
        id,
      }),
    );
  }
  queue = createRedisQueue({ redisUrl: REDIS_URL, queueName });
  await queue.start();
  await until(async () => (await queue.status()).workers.length === 2, 'two workers ready');
  gateway = await startGateway({ queue });
});
afterAll(async () => {
  await gateway?.close();
  await queue?.close();
  for (const worker of workers) await worker.close();
  await deleteKeys([`bull:${queueName}:*`, `captions:${queueName}:*`]);
});

describe('realtime re-decodes on two workers (Redis)', () => {
  it('count the slots of every worker, as /health does', async () => {
    const health = await request(gateway.base).get('/health').expect(200);
    expect(health.body.workers).toBe(2);
    expect(await gateway.admission.decodeSlots()).toBe(2);

    const engine = await gateway.admission.engine();
    expect(engine.decodeSlots).toBe(1);
    const load = { inflight: 1 };
    const ports = realtimePorts({
      admission: gateway.admission,
      engine,
      // Nothing is sent on a re-decode: the socket is never written to.
      ws: { readyState: WebSocket.OPEN, send: () => undefined } as unknown as WebSocket,
      streamId: `realtime-${randomUUID()}`,
      correlationId: 'slots',
      logger: createLogger('speech', { level: 'silent' }),
      load,
      lagBoundSeconds: 8,
    });
    const audio = sine(16000, 1.5, 440, 0.3);
    // One decode of this gateway runs: the second worker's slot is idle, so the re-decode goes.
    await expect(ports.decode(audio, DEFAULT_SETTINGS, true, '')).resolves.toMatchObject({ text: 'test' });
    // Both slots busy: skipped.
    load.inflight = 2;
    await expect(ports.decode(audio, DEFAULT_SETTINGS, true, '')).rejects.toMatchObject({
      code: 'partial_skipped',
    });
  });
});
