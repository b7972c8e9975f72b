/**
 * Correlation ids end to end: a request's id (its X-Request-ID, or a fresh one) is on the
 * gateway's access line and on every line its job writes, on both backends: the in-process
 * engine, and a Redis worker runner with its own logger, as a worker process has. Tokens and
 * transcripts never reach the logs.
 */
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  createInProcessQueue,
  createRedisQueue,
  type InferenceQueue,
  startRedisWorker,
} from '@live-captions/inference';
import { createLogger } from '@live-captions/runtime';
import { type LogCapture, logCapture } from '@live-captions/test-services';
import request from 'supertest';
import {
  API_KEY,
  deleteKeys,
  engineConfig,
  REDIS_URL,
  type RunningGateway,
  readAudio,
  startGateway,
  testConfig,
} from './helpers/gateway.js';

jest.setTimeout(60_000);

const AUTH = { Authorization: `Bearer ${API_KEY}` };
const clip = readAudio('en-pocketsphinx-goforward.wav');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const debugLogger = (service: string, capture: LogCapture) =>
  createLogger(service, { level: 'debug' }, capture.stream);

const transcribe = (gateway: RunningGateway, id?: string) =>
  request(gateway.base)
    .post('/v1/audio/transcriptions')
    .set({ ...AUTH, ...(id ? { 'X-Request-ID': id } : {}) })
    .field('model', 'whisper-1')
    .attach('file', clip, 'clip.wav');

const withId = (capture: LogCapture, id: unknown) =>
  capture.lines().filter((line) => line.correlationId === id);

/** Neither the token nor any text field: the synthetic model says "test", which ids may contain. */
function expectNothingSecret(...captures: LogCapture[]): void {
  for (const capture of captures) {
    expect(capture.text()).not.toContain(API_KEY);
    for (const line of capture.lines()) {
      expect(Object.keys(line)).not.toEqual(expect.arrayContaining(['text']));
      expect(Object.keys(line)).not.toEqual(expect.arrayContaining(['transcript']));
    }
  }
}

interface Stack {
  gateway: RunningGateway;
  gatewayLogs: LogCapture;
  /** Where the job's lines go: the gateway's own logs in-process, the worker's on Redis. */
  workerLogs: LogCapture;
  close(): Promise<void>;
}

async function inProcessStack(overrides: Parameters<typeof engineConfig>[1] = {}): Promise<Stack> {
  const gatewayLogs = logCapture();
  const logger = debugLogger('speech', gatewayLogs);
  const queue = createInProcessQueue({ engine: engineConfig('tiny', overrides), logger });
  await queue.start();
  const gateway = await startGateway({ queue, logger, config: testConfig({ apiKey: API_KEY }) });
  return {
    gateway,
    gatewayLogs,
    workerLogs: gatewayLogs,
    close: async () => {
      await gateway.close();
      await queue.close();
    },
  };
}

async function redisStack(): Promise<Stack> {
  const gatewayLogs = logCapture();
  const workerLogs = logCapture();
  const engine = engineConfig('tiny');
  const worker = await startRedisWorker({
    redisUrl: REDIS_URL,
    engine,
    logger: debugLogger('worker', workerLogs),
    id: 'correlation-worker',
  });
  const logger = debugLogger('speech', gatewayLogs);
  const queue: InferenceQueue = createRedisQueue({
    redisUrl: REDIS_URL,
    queueName: engine.queueName,
    logger,
  });
  await queue.start();
  const gateway = await startGateway({ queue, logger, config: testConfig({ apiKey: API_KEY }) });
  return {
    gateway,
    gatewayLogs,
    workerLogs,
    close: async () => {
      await gateway.close();
      await queue.close();
      await worker.close();
      await deleteKeys([`bull:${engine.queueName}:*`, `captions:${engine.queueName}:*`]);
    },
  };
}

describe.each(['in-process', 'redis'] as const)('%s backend', (name) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = name === 'redis' ? await redisStack() : await inProcessStack();
  });

  afterAll(() => stack.close());

  it("puts a /v1 request's X-Request-ID on the gateway's access line and on its job's lines", async () => {
    const id = `correlation-${name}-0001`;
    await transcribe(stack.gateway, id).expect(200);

    const access = withId(stack.gatewayLogs, id).filter((line) => line.msg === 'request');
    expect(access).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/audio/transcriptions', status: 200 }),
    ]);
    const job = withId(stack.workerLogs, id).filter((line) => line.msg === 'job decoded');
    expect(job).toHaveLength(1);
    expect(job[0]).toMatchObject({ audioSeconds: expect.any(Number), inferenceSeconds: expect.any(Number) });
    if (name === 'redis') {
      expect(job[0]!.service).toBe('worker');
      expect(typeof job[0]!.jobId).toBe('string');
    }
    expectNothingSecret(stack.gatewayLogs, stack.workerLogs);
  });

  it('gives a request without X-Request-ID a fresh id, carried to its job the same way', async () => {
    const before = stack.gatewayLogs.matching(/^request$/).length;
    await transcribe(stack.gateway).expect(200);
    const [access] = stack.gatewayLogs.matching(/^request$/).slice(before);
    expect(access!.correlationId).toMatch(UUID);
    expect(withId(stack.workerLogs, access!.correlationId).map((line) => line.msg)).toContain('job decoded');
  });
});

describe('a failed decode (in-process, the real watchdog stops it)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await inProcessStack({ watchdogMs: 1 });
  });

  afterAll(() => stack.close());

  it("logs the watchdog, the job's failure and the 500 access line with the request's id", async () => {
    const id = 'correlation-watchdog-0001';
    await transcribe(stack.gateway, id).expect(500);
    const lines = withId(stack.gatewayLogs, id);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 50, msg: 'decode watchdog tripped; replacing the decode state' }),
        expect.objectContaining({ level: 40, msg: 'job failed', code: 'inference_failed' }),
        expect.objectContaining({ level: 40, msg: 'request failed', status: 500 }),
      ]),
    );
    expectNothingSecret(stack.gatewayLogs);
  });
});
