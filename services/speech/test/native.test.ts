/**
 * POST /transcribe against the real in-process engine (synthetic tiny model): success, and
 * every row of the error table in the contract's validation order.
 */
import { describe, expect, it } from '@jest/globals';
import { MAX_PROMPT_CHARS } from '@live-captions/audio';
import request from 'supertest';
import { Messages } from '../src/domain/errors.js';
import { MAX_PCM_BYTES } from '../src/domain/pcm.js';
import {
  type Backend,
  GatedQueue,
  inProcessBackend,
  type RunningGateway,
  startGateway,
} from './helpers/gateway.js';
import { LOCAL, oneSecond, queuedTranscribe, threeSeconds, useNativeStack } from './helpers/native-stack.js';
import { pcmBody } from './helpers/wav.js';

let backend: Backend;
let englishOnly: Backend;
let gateway: RunningGateway;
const transcribe = useNativeStack((stack) => ({ backend, englishOnly, gateway } = stack));

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

  it('takes a prompt (extension): names and terms for whisper.cpp, up to the bound in any script', async () => {
    const named = await transcribe(`?${new URLSearchParams({ prompt: 'Quilter, Ngozi Okonjo-Iweala' })}`)
      .send(oneSecond)
      .expect(200);
    expect(named.body).toMatchObject({ text: 'test' });
    // percent-encoded, the longest prompt of 3-byte characters still fits Node's header limit
    const longest = encodeURIComponent('語'.repeat(MAX_PROMPT_CHARS));
    await transcribe(`?prompt=${longest}`).send(oneSecond).expect(200);
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

  it('3-6: language, then mode, then English-only, then context, then the prompt (extension)', async () => {
    const long = `prompt=${'x'.repeat(MAX_PROMPT_CHARS + 1)}`;
    const cases: [string, string][] = [
      ['?language=english&mode=x&context_seconds=5', Messages.language],
      ['?language=&mode=transcribe', Messages.language],
      ['?mode=dictate&context_seconds=5', Messages.mode],
      ['?context_seconds=1.5', Messages.context],
      ['?context_seconds=', Messages.context],
      [`?context_seconds=-0.1&${long}`, Messages.context],
      [`?${long}`, Messages.prompt],
      ['?prompt=Quilter&prompt=Ngozi', Messages.prompt],
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
    const room = await transcribe()
      .set({ 'X-Stream-ID': 'stream-room', 'X-Caption-Room': 'main hall' })
      .send(tooLong);
    expect([room.status, room.body]).toEqual([400, { detail: Messages.room }]);
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
    await transcribe('?prompt=Quilter', headers).send(oneSecond).expect(409);
  });

  it('13: 429 when the queue deadline passes first, and the job never runs', async () => {
    const gated = new GatedQueue(backend.queue);
    const deadline = await startGateway({ queue: gated, queueTimeoutMs: 100 });
    try {
      const before = (await backend.queue.status()).workers[0]!;
      const { response } = await queuedTranscribe(gated, deadline.base, oneSecond);
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
