/**
 * POST /transcribe and DELETE /streams/{id} against the real in-process engine (synthetic tiny
 * model): sessions, the retry cache, streaming limits, the HTTP concurrency limit and graceful
 * shutdown.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Messages } from '../src/domain/errors.js';
import { MAX_PCM_BYTES } from '../src/domain/pcm.js';
import {
  type Backend,
  GatedQueue,
  inProcessBackend,
  type RunningGateway,
  startGateway,
  testConfig,
  until,
} from './helpers/gateway.js';
import { LOCAL, oneSecond, queuedTranscribe, threeSeconds, useNativeStack } from './helpers/native-stack.js';
import { holdStream, openUpload } from './helpers/uploads.js';

let backend: Backend;
let gateway: RunningGateway;
const transcribe = useNativeStack((stack) => ({ backend, gateway } = stack));

describe('stream sessions and admission', () => {
  it('admits 12 streams (idle ones count until they expire after 120 s) and refuses the 13th', async () => {
    let now = 1_000_000;
    const limited = await startGateway({ queue: backend.queue, now: () => now });
    try {
      const uploads = await Promise.all(
        Array.from({ length: 12 }, (_, i) => holdStream(limited, `stream-cap-${i}`)),
      );
      await until(() => limited.admission.streams.busyCount === 12, '12 busy sessions');
      const refused = await request(limited.base)
        .post('/transcribe')
        .set({ ...LOCAL, 'X-Stream-ID': 'stream-cap-13' })
        .send(oneSecond)
        .expect(429);
      expect(refused.body).toEqual({ detail: Messages.capacity });
      expect(refused.headers['retry-after']).toBe('2');

      // Abandoned uploads leave idle sessions, which still count...
      for (const upload of uploads) upload.destroy();
      await until(() => limited.admission.streams.busyCount === 0, 'sessions released');
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
    await until(() => gateway.admission.streams.busyCount === 0, 'session released');

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
      await until(() => gw.admission.streams.busyCount === 0, 'session released');
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
    await until(() => gateway.admission.streams.busyCount === 0, 'session released');
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
      await until(() => limited.admission.streams.busyCount === 2, 'two uploads in flight');
      const res = await request(limited.base).get('/health').expect(503);
      expect(res.body).toEqual({ detail: Messages.httpLimit });
      expect(res.headers['retry-after']).toBe('1');
      for (const upload of held) upload.destroy();
      await until(() => limited.admission.streams.busyCount === 0, 'uploads closed');
      await request(limited.base).get('/health').expect(200);
    } finally {
      await limited.close();
    }
  });

  it('graceful shutdown: new requests get 503, the running decode is answered, then the queue closes', async () => {
    const own = await inProcessBackend('tiny');
    const gated = new GatedQueue(own.queue);
    const gw = await startGateway({ queue: gated });
    const { response: running } = await queuedTranscribe(gated, gw.base, oneSecond);
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
