/**
 * POST /transcribe and DELETE /streams/{id} against the real in-process engine (synthetic tiny
 * model): every row of the error table in the contract's validation order, sessions, the retry
 * cache, streaming limits, the HTTP concurrency limit and graceful shutdown.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Messages } from '../src/domain/errors.js';
import { MAX_PCM_BYTES } from '../src/domain/pcm.js';
import {
  type Backend,
  GatedQueue,
  holdStream,
  inProcessBackend,
  openUpload,
  type RunningGateway,
  startGateway,
  testConfig,
  until,
} from './helpers/gateway.js';
import { pcmBody, sine } from './helpers/wav.js';

const LOCAL = { 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' };
const oneSecond = pcmBody(sine(16000, 1, 440, 0.3));
const threeSeconds = pcmBody(sine(16000, 3, 440, 0.3));

let backend: Backend;
let englishOnly: Backend;
let gateway: RunningGateway;

beforeAll(async () => {
  backend = await inProcessBackend('tiny');
  englishOnly = await inProcessBackend('tiny.en');
  gateway = await startGateway({ queue: backend.queue });
});

afterAll(async () => {
  await gateway.close();
  await backend.close();
  await englishOnly.close();
});

const transcribe = (query = '', headers: Record<string, string> = LOCAL) =>
  request(gateway.base).post(`/transcribe${query}`).set(headers);

describe('POST /transcribe: success', () => {
  it('answers the native response with defaults (legacy stream, no request ID)', async () => {
    const res = await transcribe().send(threeSeconds).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      text: 'test',
      transcript: 'test',
      translation: '',
      language: 'en',
      output_language: 'en',
      translation_language: null,
      mode: 'transcribe',
      audio_seconds: 3,
      committed_seconds: 3,
      request_id: '',
      stream_id: 'legacy',
      queue_seconds: expect.any(Number),
      inference_seconds: expect.any(Number),
    });
  });

  it('translates with mode=translate and keeps the last second of an unfinished window open', async () => {
    const translated = await transcribe('?mode=translate&language=fr').send(oneSecond).expect(200);
    expect(translated.body).toMatchObject({
      text: 'test',
      transcript: '',
      translation: 'test',
      translation_language: 'en',
    });
    const windowed = await transcribe('?window=1&final=0&context_seconds=0.5')
      .set('X-Stream-ID', 'stream-window')
      .send(threeSeconds)
      .expect(200);
    expect(windowed.body).toMatchObject({ committed_seconds: 2, stream_id: 'stream-window' });
  });

  it('gives empty text for silence', async () => {
    const res = await transcribe('?language=auto')
      .send(pcmBody(new Float32Array(16000)))
      .expect(200);
    expect(res.body).toMatchObject({ text: '', language: null });
  });
});

describe('POST /transcribe: the error table in validation order', () => {
  // Each request breaks its own step and every later one, so only the order picks the answer.
  const tooLong = Buffer.alloc(MAX_PCM_BYTES + 4);

  it('1: 403 for a missing or wrong local header, or a foreign Origin', async () => {
    const variants: Record<string, string>[] = [
      { 'Content-Type': 'text/plain' },
      { 'X-Caption-Local': '0', 'Content-Type': 'text/plain' },
      { 'X-Caption-Local': 'true', 'Content-Type': 'text/plain' },
      { 'X-Caption-Local': '1', 'Content-Type': 'text/plain', Origin: 'https://evil.example' },
    ];
    for (const headers of variants) {
      const res = await transcribe('?language=english', headers).send(tooLong).expect(403);
      expect(res.body).toEqual({ detail: Messages.forbidden });
    }
  });

  it('1: accepts the service own origin', async () => {
    await transcribe('', { ...LOCAL, Origin: gateway.base })
      .send(oneSecond)
      .expect(200);
  });

  it('2: 415 unless the content type is exactly application/octet-stream', async () => {
    for (const type of ['text/plain', 'application/octet-stream; charset=x', 'audio/wav']) {
      const res = await transcribe('?language=english', { 'X-Caption-Local': '1', 'Content-Type': type })
        .send(tooLong)
        .expect(415);
      expect(res.body).toEqual({ detail: Messages.contentType });
    }
  });

  it('3-6: language, then mode, then English-only, then context', async () => {
    const cases: [string, string][] = [
      ['?language=english&mode=x&context_seconds=5', Messages.language],
      ['?language=&mode=transcribe', Messages.language],
      ['?mode=dictate&context_seconds=5', Messages.mode],
      ['?context_seconds=1.5', Messages.context],
      ['?context_seconds=', Messages.context],
      ['?context_seconds=-0.1', Messages.context],
    ];
    for (const [query, detail] of cases) {
      const res = await transcribe(query).set('X-Request-ID', 'bad id').send(tooLong).expect(400);
      expect(res.body).toEqual({ detail });
    }
  });

  it('5: 400 English-only for other languages or translation on an English-only model', async () => {
    const english = await startGateway({ queue: englishOnly.queue });
    try {
      for (const query of ['?language=fr&context_seconds=9', '?mode=translate', '?mode=both']) {
        const res = await request(english.base)
          .post(`/transcribe${query}`)
          .set(LOCAL)
          .send(tooLong)
          .expect(400);
        expect(res.body).toEqual({ detail: Messages.englishOnly });
      }
      const ok = await request(english.base)
        .post('/transcribe?language=auto')
        .set(LOCAL)
        .send(oneSecond)
        .expect(200);
      expect(ok.body.text).toBe('test');
    } finally {
      await english.close();
    }
  });

  it('7: request ID before stream ID', async () => {
    const both = await transcribe()
      .set({ 'X-Request-ID': 'short', 'X-Stream-ID': 'bad!' })
      .send(tooLong)
      .expect(400);
    expect(both.body).toEqual({ detail: Messages.requestId });
    const stream = await transcribe()
      .set({ 'X-Request-ID': 'request-0001', 'X-Stream-ID': 'x'.repeat(81) })
      .send(tooLong);
    expect(stream.status).toBe(400);
    expect(stream.body).toEqual({ detail: Messages.streamId });
  });

  it('9: 413 before anything about the samples; 10: PCM length, then samples; 11: window', async () => {
    const big = await transcribe().set('X-Stream-ID', 'stream-413').send(tooLong).expect(413);
    expect(big.body).toEqual({ detail: Messages.tooLong });
    const cases: [Buffer, string, string][] = [
      [Buffer.alloc(639), '', Messages.pcmLength],
      [Buffer.alloc(642), '', Messages.pcmLength],
      [pcmBody([...new Array(200).fill(0), Number.NaN]), '', Messages.pcmSamples],
      [pcmBody([...new Array(200).fill(0), 1.02]), '', Messages.pcmSamples],
      [pcmBody(new Array(200).fill(0)), '?context_seconds=1', Messages.window],
      [oneSecond, '?window=1&final=0&context_seconds=0.5', Messages.window],
    ];
    for (const [body, query, detail] of cases) {
      const res = await transcribe(query).send(body).expect(400);
      expect(res.body).toEqual({ detail });
    }
  });

  it('12: same request ID and audio -> the cached body (timings included); different audio -> 409', async () => {
    const headers = { ...LOCAL, 'X-Stream-ID': 'stream-retry', 'X-Request-ID': 'request-retry-1' };
    const first = await transcribe('', headers).send(oneSecond).expect(200);
    const completed = (await gateway.admission.counters()).completed;
    const again = await transcribe('', headers).send(oneSecond).expect(200);
    expect(again.text).toBe(first.text);
    expect(again.body).toMatchObject({ request_id: 'request-retry-1', stream_id: 'stream-retry' });
    expect((await gateway.admission.counters()).completed).toBe(completed);

    const conflict = await transcribe('', headers).send(threeSeconds).expect(409);
    expect(conflict.body).toEqual({ detail: Messages.conflict });
    expect(conflict.headers['x-should-retry']).toBe('false');
    // Options are part of the signature too.
    await transcribe('?language=de', headers).send(oneSecond).expect(409);
  });

  it('13: 429 when the queue deadline passes first, and the job never runs', async () => {
    const gated = new GatedQueue(backend.queue);
    const deadline = await startGateway({ queue: gated, queueTimeoutMs: 100 });
    try {
      const before = (await backend.queue.status()).workers[0]!;
      gated.hold();
      const pending = request(deadline.base).post('/transcribe').set(LOCAL).send(oneSecond);
      const response = pending.then((res) => res);
      await gated.waitForSubmissions(1);
      await new Promise((resolve) => setTimeout(resolve, 150));
      gated.open();
      const res = await response;
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ detail: Messages.queueDeadline });
      expect(res.headers['retry-after']).toBe('1');
      const after = (await backend.queue.status()).workers[0]!;
      expect(after.completed).toBe(before.completed);
      expect(after.queueTimeouts).toBe(before.queueTimeouts + 1);
      const health = await request(deadline.base).get('/health').expect(200);
      expect(health.body).toMatchObject({ queue_timeouts: 1, completed: 0, queue_timeout: 0.1 });
    } finally {
      await deadline.close();
    }
  });

  it('14: 500 when the decode fails (the real watchdog stops it), counted as failed', async () => {
    const failing = await inProcessBackend('tiny', 1, { watchdogMs: 1 });
    const broken = await startGateway({ queue: failing.queue });
    try {
      const res = await request(broken.base).post('/transcribe').set(LOCAL).send(threeSeconds).expect(500);
      expect(res.body).toEqual({ detail: Messages.inferenceFailed });
      expect(await broken.admission.counters()).toMatchObject({ failed: 1, completed: 0 });
    } finally {
      await broken.close();
      await failing.close();
    }
  });
});

describe('stream sessions and admission', () => {
  it('admits 12 streams (idle ones count until they expire after 120 s) and refuses the 13th', async () => {
    let now = 1_000_000;
    const limited = await startGateway({ queue: backend.queue, now: () => now });
    try {
      const uploads = await Promise.all(
        Array.from({ length: 12 }, (_, i) => holdStream(limited, `stream-cap-${i}`)),
      );
      await until(() => limited.admission.sessions.busyCount === 12, '12 busy sessions');
      const refused = await request(limited.base)
        .post('/transcribe')
        .set({ ...LOCAL, 'X-Stream-ID': 'stream-cap-13' })
        .send(oneSecond)
        .expect(429);
      expect(refused.body).toEqual({ detail: Messages.capacity });
      expect(refused.headers['retry-after']).toBe('2');

      // Abandoned uploads leave idle sessions, which still count...
      for (const upload of uploads) upload.destroy();
      await until(() => limited.admission.sessions.busyCount === 0, 'sessions released');
      await request(limited.base)
        .post('/transcribe')
        .set({ ...LOCAL, 'X-Stream-ID': 'stream-cap-13' })
        .send(oneSecond)
        .expect(429);
      // ...until they expire; an existing idle session is always admitted.
      await request(limited.base)
        .post('/transcribe')
        .set({ ...LOCAL, 'X-Stream-ID': 'stream-cap-0' })
        .send(oneSecond)
        .expect(200);
      now += 120_000;
      await request(limited.base)
        .post('/transcribe')
        .set({ ...LOCAL, 'X-Stream-ID': 'stream-cap-13' })
        .send(oneSecond)
        .expect(200);
      const health = await request(limited.base).get('/health').expect(200);
      expect(health.body).toMatchObject({ sessions: 1, rejected: 2, max_streams: 12 });
    } finally {
      await limited.close();
    }
  });

  it('refuses a busy stream with 429 before reading its body', async () => {
    const holder = await holdStream(gateway, 'stream-busy');
    // Announces a full 12 s body but sends none of it: the answer must not wait for it.
    const second = openUpload(gateway.port, 'POST', '/transcribe', {
      ...LOCAL,
      'X-Stream-ID': 'stream-busy',
      'Content-Length': String(MAX_PCM_BYTES),
    });
    const res = await second.response;
    expect(second.ended()).toBe(false);
    expect(res.status).toBe(429);
    expect(JSON.parse(res.body)).toEqual({ detail: Messages.busy });
    expect(res.headers['retry-after']).toBe('1');
    second.destroy();
    holder.end(oneSecond.subarray(8));
    expect((await holder.response).status).toBe(200);
  });

  it('DELETE closes an idle stream and forgets its cache at once, refuses a busy one with 409', async () => {
    const headers = { ...LOCAL, 'X-Stream-ID': 'stream-delete', 'X-Request-ID': 'request-delete-1' };
    const first = await transcribe('', headers).send(oneSecond).expect(200);

    const holder = await holdStream(gateway, 'stream-delete', headers);
    const busy = await request(gateway.base)
      .delete('/streams/stream-delete')
      .set('X-Caption-Local', '1')
      .expect(409);
    expect(busy.body).toEqual({ detail: Messages.busyClose });
    holder.destroy();
    await until(() => gateway.admission.sessions.busyCount === 0, 'session released');

    await request(gateway.base).delete('/streams/stream-delete').expect(403);
    const closed = await request(gateway.base)
      .delete('/streams/stream-delete')
      .set('X-Caption-Local', '1')
      .expect(200);
    expect(closed.body).toEqual({ closed: 'stream-delete' });
    // The cache is gone: the same request ID now decodes again instead of answering the old body.
    const completed = (await gateway.admission.counters()).completed;
    const again = await transcribe('', headers).send(threeSeconds).expect(200);
    expect(again.body.audio_seconds).toBe(3);
    expect(first.body.audio_seconds).toBe(1);
    expect((await gateway.admission.counters()).completed).toBe(completed + 1);

    for (const id of ['never-seen-stream', 'legacy', 'x']) {
      const res = await request(gateway.base)
        .delete(`/streams/${id}`)
        .set('X-Caption-Local', '1')
        .expect(200);
      expect(res.body).toEqual({ closed: id });
    }
  });

  it('keeps decoding when the client disconnects, and answers the retry from the cache', async () => {
    const gated = new GatedQueue(backend.queue);
    const gw = await startGateway({ queue: gated });
    try {
      gated.hold();
      const headers = { ...LOCAL, 'X-Stream-ID': 'stream-gone', 'X-Request-ID': 'request-gone-1' };
      const upload = openUpload(gw.port, 'POST', '/transcribe', headers);
      upload.end(oneSecond);
      await gated.waitForSubmissions(1);
      upload.destroy();
      gated.open();
      await until(
        async () => (await gw.admission.counters()).completed === 1,
        'the abandoned decode to finish',
      );
      await until(() => gw.admission.sessions.busyCount === 0, 'session released');
      const retry = await request(gw.base).post('/transcribe').set(headers).send(oneSecond).expect(200);
      expect(retry.body).toMatchObject({ text: 'test', request_id: 'request-gone-1' });
      expect((await gw.admission.counters()).completed).toBe(1);
      expect(gated.submitted).toBe(1);
    } finally {
      await gw.close();
    }
  });
});

describe('body limits while streaming', () => {
  it('413 as soon as a chunked body passes 768,000 bytes, without waiting for its end', async () => {
    const upload = openUpload(gateway.port, 'POST', '/transcribe', {
      ...LOCAL,
      'X-Stream-ID': 'stream-oversize',
    });
    upload.write(Buffer.alloc(500_000));
    upload.write(Buffer.alloc(300_000));
    const res = await upload.response;
    expect(upload.ended()).toBe(false);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ detail: Messages.tooLong });
    upload.destroy();
    await until(() => gateway.admission.sessions.busyCount === 0, 'session released');
  });

  it('413 at once for a Content-Length above the limit', async () => {
    const upload = openUpload(gateway.port, 'POST', '/transcribe', {
      ...LOCAL,
      'Content-Length': String(MAX_PCM_BYTES + 4),
    });
    const res = await upload.response;
    expect(upload.ended()).toBe(false);
    expect(res.status).toBe(413);
    upload.destroy();
  });

  it('408 for a body not complete within the upload deadline, and the stream is free again', async () => {
    const slow = await startGateway({ queue: backend.queue, uploadTimeoutMs: 300 });
    try {
      const upload = openUpload(
        slow.port,
        'POST',
        '/transcribe',
        { ...LOCAL, 'X-Stream-ID': 'stream-slow' },
        Buffer.alloc(400),
      );
      const res = await upload.response;
      expect(res.status).toBe(408);
      expect(JSON.parse(res.body)).toEqual({ detail: Messages.uploadTimeout });
      expect(res.headers.connection).toBe('close');
      await request(slow.base)
        .post('/transcribe')
        .set({ ...LOCAL, 'X-Stream-ID': 'stream-slow' })
        .send(oneSecond)
        .expect(200);
    } finally {
      await slow.close();
    }
  });
});

describe('HTTP concurrency limit and shutdown', () => {
  it('503 with Retry-After beyond the HTTP concurrency limit', async () => {
    const limited = await startGateway({ queue: backend.queue, config: testConfig({ httpLimit: 2 }) });
    try {
      const held = await Promise.all([0, 1].map((i) => holdStream(limited, `stream-limit-${i}`)));
      await until(() => limited.admission.sessions.busyCount === 2, 'two uploads in flight');
      const res = await request(limited.base).get('/health').expect(503);
      expect(res.body).toEqual({ detail: Messages.httpLimit });
      expect(res.headers['retry-after']).toBe('1');
      for (const upload of held) upload.destroy();
      await until(() => limited.admission.sessions.busyCount === 0, 'uploads closed');
      await request(limited.base).get('/health').expect(200);
    } finally {
      await limited.close();
    }
  });

  it('graceful shutdown: new requests get 503, the running decode is answered, then the queue closes', async () => {
    const own = await inProcessBackend('tiny');
    const gated = new GatedQueue(own.queue);
    const gw = await startGateway({ queue: gated });
    gated.hold();
    const running = request(gw.base)
      .post('/transcribe')
      .set(LOCAL)
      .send(oneSecond)
      .then((res) => res);
    await gated.waitForSubmissions(1);
    const stopped = gw.shutdown(gw.server);
    const refused = await request(gw.app).get('/health').expect(503);
    expect(refused.body).toEqual({ detail: Messages.restarting });
    expect(refused.headers['retry-after']).toBe('1');
    gated.open();
    const res = await running;
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('test');
    await stopped;
    // The queue was closed: it takes no more jobs.
    const request_ = {
      mode: 'transcribe',
      language: 'en',
      window: false,
      final: true,
      contextSeconds: 0,
    } as const;
    await expect(
      own.queue.submit(
        { ...request_, requestId: '', streamId: 'x', correlationId: 'x' },
        new Float32Array(16000),
        {
          startDeadline: Date.now() + 1000,
        },
      ),
    ).rejects.toMatchObject({ code: 'unavailable' });
    expect(gw.server.listening).toBe(false);
  });
});
