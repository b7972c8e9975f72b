/**
 * The same gateway behaviour on both queue backends: the in-process engine, and BullMQ on the
 * local Redis with a real worker (the inference package's worker runner) on the synthetic tiny
 * model. Plus the Redis-only rules: 503 until a worker is ready, figures of several workers.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisQueue, startRedisWorker } from '@live-captions/inference';
import OpenAI from 'openai';
import request from 'supertest';
import { Messages } from '../src/domain/errors.js';
import {
  API_KEY,
  audioDir,
  type Backend,
  engineConfig,
  GatedQueue,
  REDIS_URL,
  type RunningGateway,
  startBackend,
  startGateway,
  testConfig,
  until,
} from './helpers/gateway.js';
import { queuedTranscribe, transcribeOn } from './helpers/native-stack.js';
import { pcmBody, sine } from './helpers/wav.js';

const LOCAL = {
  'X-Caption-Local': '1',
  'Content-Type': 'application/octet-stream',
  Authorization: `Bearer ${API_KEY}`,
};
const oneSecond = pcmBody(sine(16000, 1, 440, 0.3));
const twoSeconds = pcmBody(sine(16000, 2, 440, 0.3));

/** Worker figures published after this call (Redis workers announce them with a heartbeat). */
async function freshFigures(backend: Backend) {
  const since = Date.now();
  await until(
    async () => ((await backend.queue.status()).workers[0]?.updatedAt ?? 0) > since,
    'fresh worker figures',
  );
  return (await backend.queue.status()).workers[0]!;
}

describe.each(['in-process', 'redis'] as const)('%s backend', (name) => {
  let backend: Backend;
  let gateway: RunningGateway;

  beforeAll(async () => {
    backend = await startBackend(name, 'tiny');
    gateway = await startGateway({ queue: backend.queue, config: testConfig({ apiKey: API_KEY }) });
  });

  afterAll(async () => {
    await gateway.close();
    await backend.close();
  });

  it('reports the worker figures in health', async () => {
    const res = await request(gateway.base).get('/health').set(LOCAL).expect(200);
    expect(res.body).toMatchObject({
      ready: true,
      model: 'synthetic-tiny',
      workers: 1,
      busy: false,
      pending: 0,
    });
  });

  it('transcribes, translates and answers retries from the cache', async () => {
    const headers = { ...LOCAL, 'X-Stream-ID': `stream-${name}`, 'X-Request-ID': 'request-backend-1' };
    const first = await request(gateway.base)
      .post('/transcribe?mode=both&language=de')
      .set(headers)
      .send(oneSecond)
      .expect(200);
    expect(first.body).toMatchObject({
      text: 'test',
      transcript: 'test',
      translation: 'test',
      language: 'de',
      translation_language: 'en',
      audio_seconds: 1,
      committed_seconds: 1,
      request_id: 'request-backend-1',
      stream_id: `stream-${name}`,
    });
    const again = await request(gateway.base)
      .post('/transcribe?mode=both&language=de')
      .set(headers)
      .send(oneSecond)
      .expect(200);
    expect(again.text).toBe(first.text);
    const conflict = await request(gateway.base).post('/transcribe').set(headers).send(oneSecond).expect(409);
    expect(conflict.body).toEqual({ detail: Messages.conflict });
    const health = await request(gateway.base).get('/health').set(LOCAL).expect(200);
    expect(health.body).toMatchObject({ completed: 1, failed: 0, sessions: 1 });
  });

  it('serves the openai SDK', async () => {
    const client = new OpenAI({ apiKey: API_KEY, baseURL: `${gateway.base}/v1`, maxRetries: 0 });
    expect((await client.models.list()).data[0]?.id).toBe('synthetic-tiny');
    const transcription = await client.audio.transcriptions.create({
      file: createReadStream(join(audioDir, 'en-deepspeech-LDC93S1.wav')),
      model: 'whisper-1',
    });
    expect(transcription.text).toBe('test');
    const translation = await client.audio.translations.create({
      file: createReadStream(join(audioDir, 'fr-speechrecognition-french.wav')),
      model: 'synthetic-tiny',
    });
    expect(translation.text).toBe('test');
  });

  it('answers 429 when the queue deadline passes, and the job never runs', async () => {
    const gated = new GatedQueue(backend.queue);
    const gw = await startGateway({ queue: gated, queueTimeoutMs: 100 });
    try {
      const before = await freshFigures(backend);
      const { response } = await queuedTranscribe(gated, gw.base, oneSecond, LOCAL);
      await new Promise((resolve) => setTimeout(resolve, 150));
      gated.open();
      const res = await response;
      expect([res.status, res.body]).toEqual([429, { detail: Messages.queueDeadline }]);
      expect((await gw.admission.counters()).queueTimeouts).toBe(1);
      const after = await freshFigures(backend);
      expect(after.completed).toBe(before.completed);
    } finally {
      await gw.close();
    }
  });

  it('refuses to close a stream while its decode is queued, closes it once idle', async () => {
    const gated = new GatedQueue(backend.queue);
    const gw = await startGateway({ queue: gated });
    try {
      const headers = { ...LOCAL, 'X-Stream-ID': 'stream-queued' };
      const { response } = await queuedTranscribe(gated, gw.base, twoSeconds, headers);
      const busy = await request(gw.base).delete('/streams/stream-queued').set(LOCAL).expect(409);
      expect(busy.body).toEqual({ detail: Messages.busyClose });
      const second = await request(gw.base).post('/transcribe').set(headers).send(oneSecond).expect(429);
      expect(second.body).toEqual({ detail: Messages.busy });
      gated.open();
      expect((await response).status).toBe(200);
      await request(gw.base).delete('/streams/stream-queued').set(LOCAL).expect(200);
    } finally {
      await gw.close();
    }
  });
});

describe('redis backend: workers on any host', () => {
  it('503 until a worker is ready; health sums the live workers', async () => {
    const queueName = `speech-test-${randomUUID()}`;
    const queue = createRedisQueue({ redisUrl: REDIS_URL, queueName });
    await queue.start();
    const gw = await startGateway({ queue });
    const workers: { close(): Promise<void> }[] = [];
    try {
      await request(gw.base).get('/health').expect(503, { detail: Messages.modelLoading });
      const addWorker = async (decodeSlots: number) =>
        workers.push(
          await startRedisWorker({
            redisUrl: REDIS_URL,
            engine: engineConfig('tiny', { queueName, decodeSlots }),
          }),
        );
      await addWorker(1);
      const one = await request(gw.base).get('/health').expect(200);
      expect(one.body.workers).toBe(1);
      await addWorker(2);
      const three = await request(gw.base).get('/health').expect(200);
      expect(three.body.workers).toBe(3);
      await transcribeOn(gw.base).send(oneSecond).expect(200);
    } finally {
      await gw.close();
      await queue.close();
      for (const worker of workers) await worker.close();
    }
  });
});
