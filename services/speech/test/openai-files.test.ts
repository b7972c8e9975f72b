/**
 * /v1 (OpenAI audio subset) against the real in-process engine (synthetic tiny model): WAV
 * handling, limits, sessions, and the official `openai` SDK pointed at {base}/v1 with the
 * service token.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import OpenAI, { toFile } from 'openai';
import { Messages } from '../src/domain/errors.js';
import { audioDir, type Backend, type RunningGateway, readAudio, startGateway } from './helpers/gateway.js';
import {
  AUTH,
  expectOpenAiError,
  JFK,
  jfk,
  short,
  uploadTo,
  useOpenAiStack,
} from './helpers/openai-stack.js';
import { holdStream, openUpload, uploadThenRead } from './helpers/uploads.js';
import { buildWav, sine } from './helpers/wav.js';

let backend: Backend;
let gateway: RunningGateway;
let client: OpenAI;
useOpenAiStack((stack) => ({ backend, gateway, client } = stack));
const upload = (path?: string, file?: Buffer) => uploadTo(gateway, path, file);

describe('POST /v1/audio/*: WAV files', () => {
  const pcm = (spec: Parameters<typeof buildWav>[0], seconds: number) =>
    buildWav(spec, sine(spec.sampleRate, seconds * spec.channels, 300, 0.3));

  it('accepts stereo, 24-bit, float and 8-48 kHz files (resampled)', async () => {
    for (const spec of [
      { sampleRate: 44100, channels: 2, bits: 16 },
      { sampleRate: 8000, channels: 1, bits: 24 },
      { sampleRate: 48000, channels: 2, bits: 32, float: true },
      { sampleRate: 22050, channels: 1, bits: 32, extensible: true },
    ]) {
      const res = await upload('/v1/audio/transcriptions', pcm(spec, 1)).field('model', 'whisper-1');
      expect([res.status, res.body]).toEqual([
        200,
        { text: 'test', usage: { type: 'duration', seconds: 1 } },
      ]);
    }
  });

  it('415 for garbage, compressed or unsupported layouts; 400 truncated; 413 outside 0.01-12 s', async () => {
    const cases: [Buffer, number, string, string | null][] = [
      [Buffer.from('this is not audio at all'), 415, Messages.wavUnsupported, 'unsupported_media_type'],
      [
        pcm({ sampleRate: 16000, channels: 1, bits: 16, formatTag: 0x55 }, 1),
        415,
        Messages.wavUnsupported,
        'unsupported_media_type',
      ],
      [
        pcm({ sampleRate: 16000, channels: 3, bits: 16 }, 1),
        415,
        Messages.wavChannels,
        'unsupported_media_type',
      ],
      [pcm({ sampleRate: 96000, channels: 1, bits: 16 }, 1), 415, Messages.wavRate, 'unsupported_media_type'],
      [short.subarray(0, short.length - 1001), 400, Messages.wavTruncated, null],
      [
        pcm({ sampleRate: 16000, channels: 1, bits: 16 }, 12.5),
        413,
        Messages.audioTooLong,
        'payload_too_large',
      ],
      [
        pcm({ sampleRate: 16000, channels: 1, bits: 16 }, 0.005),
        413,
        Messages.audioTooShort,
        'payload_too_large',
      ],
    ];
    for (const [file, status, detail, code] of cases) {
      const res = await upload('/v1/audio/transcriptions', file).field('model', 'whisper-1');
      expect(res.status).toBe(status);
      expectOpenAiError(res.body, detail, 'invalid_request_error', 'file', code);
    }
  });

  it('413 when the multipart envelope passes 5 MiB, while streaming', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 1);
    const res = await upload('/v1/audio/transcriptions', big).field('model', 'whisper-1').expect(413);
    expectOpenAiError(
      res.body,
      Messages.envelopeTooLarge,
      'invalid_request_error',
      'file',
      'payload_too_large',
    );
    // Chunked, without a Content-Length: refused once the bytes pass the limit.
    const chunked = openUpload(gateway.port, 'POST', '/v1/audio/transcriptions', {
      ...AUTH,
      'Content-Type': 'multipart/form-data; boundary=xyz',
    });
    chunked.write(
      Buffer.from('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n'),
    );
    chunked.write(Buffer.alloc(3 * 1024 * 1024));
    chunked.write(Buffer.alloc(3 * 1024 * 1024));
    const streamed = await chunked.response;
    expect(chunked.ended()).toBe(false);
    expect(streamed.status).toBe(413);
    chunked.destroy();
  });

  it('413 to a client that closes the connection after its request, not a reset', async () => {
    const body = Buffer.concat([
      Buffer.from('--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n'),
      Buffer.alloc(6 * 1024 * 1024),
    ]);
    const chunked = Buffer.concat([
      Buffer.from(`${body.length.toString(16)}\r\n`),
      body,
      Buffer.from('\r\n0\r\n\r\n'),
    ]);
    // Announced (refused before reading) and chunked (refused once past the limit).
    for (const [framing, sent] of [
      [`Content-Length: ${body.length}`, body],
      ['Transfer-Encoding: chunked', chunked],
    ] as const) {
      const head = [
        'POST /v1/audio/transcriptions HTTP/1.1',
        'Host: 127.0.0.1',
        `Authorization: ${AUTH.Authorization}`,
        'Content-Type: multipart/form-data; boundary=xyz',
        'Connection: close',
        framing,
      ].join('\r\n');
      const answer = await uploadThenRead(gateway.port, `${head}\r\n\r\n`, sent);
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain(Messages.envelopeTooLarge);
    }
  });

  it('408 for a multipart upload not complete within the deadline', async () => {
    const slow = await startGateway({ queue: backend.queue, uploadTimeoutMs: 300 });
    try {
      const pending = openUpload(slow.port, 'POST', '/v1/audio/transcriptions', {
        'Content-Type': 'multipart/form-data; boundary=xyz',
      });
      pending.write(
        Buffer.from('--xyz\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n'),
      );
      const res = await pending.response;
      expect(res.status).toBe(408);
      expectOpenAiError(
        JSON.parse(res.body),
        Messages.uploadTimeout,
        'invalid_request_error',
        null,
        'upload_timeout',
      );
      pending.destroy();
    } finally {
      await slow.close();
    }
  });
});

describe('POST /v1/audio/*: sessions', () => {
  it('honours X-Request-ID retries and answers 409 for different audio', async () => {
    const headers = { 'X-Stream-ID': 'v1-stream-retry', 'X-Request-ID': 'v1-request-0001' };
    const first = await upload().set(headers).field('model', 'whisper-1').expect(200);
    const completed = (await gateway.admission.counters()).completed;
    const again = await upload().set(headers).field('model', 'whisper-1').expect(200);
    expect(again.body).toEqual(first.body);
    expect((await gateway.admission.counters()).completed).toBe(completed);
    const other = await upload('/v1/audio/transcriptions', readAudio('en-deepspeech-LDC93S1.wav'))
      .set(headers)
      .field('model', 'whisper-1')
      .expect(409);
    expectOpenAiError(other.body, Messages.conflict, 'invalid_request_error', null, 'request_id_conflict');
    expect(other.headers['x-should-retry']).toBe('false');
  });

  it('shares stream sessions with the native route: a busy stream is refused before its body is read', async () => {
    const holder = await holdStream(gateway, 'shared-stream', AUTH);
    const second = openUpload(gateway.port, 'POST', '/v1/audio/transcriptions', {
      ...AUTH,
      'Content-Type': 'multipart/form-data; boundary=xyz',
      'Content-Length': String(4 * 1024 * 1024),
      'X-Stream-ID': 'shared-stream',
    });
    const res = await second.response;
    expect(second.ended()).toBe(false);
    expect(res.status).toBe(429);
    expectOpenAiError(JSON.parse(res.body), Messages.busy, 'rate_limit_error', null, 'stream_busy');
    second.destroy();
    holder.destroy();
  });
});

describe('the official openai SDK', () => {
  it('lists models, transcribes and translates a WAV from fixtures/audio', async () => {
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['synthetic-tiny']);
    const transcription = await client.audio.transcriptions.create({
      file: createReadStream(join(audioDir, JFK)),
      model: 'whisper-1',
    });
    expect(transcription.text).toBe('test');
    const text = await client.audio.transcriptions.create({
      file: await toFile(short, 'goforward.wav'),
      model: 'synthetic-tiny',
      language: 'en',
      response_format: 'text',
    });
    expect(text).toBe('test');
    const translation = await client.audio.translations.create({
      file: createReadStream(join(audioDir, 'de-picovoice-test_de.wav')),
      model: 'whisper-1',
    });
    expect(translation.text).toBe('test');
  });

  it('raises AuthenticationError (401), BadRequestError (400), APIError 413 and RateLimitError (429)', async () => {
    const wrong = new OpenAI({
      apiKey: 'wrong-key-0123456789abcdefghij',
      baseURL: `${gateway.base}/v1`,
      maxRetries: 0,
    });
    const auth = await wrong.models.list().catch((error: unknown) => error);
    expect(auth).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(auth).toMatchObject({
      status: 401,
      type: 'authentication_error',
      message: `401 ${Messages.unauthorized}`,
    });

    const bad = await client.audio.transcriptions
      .create({ file: await toFile(jfk, 'jfk.wav'), model: 'gpt-4o-transcribe' })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect(bad).toMatchObject({ status: 400, param: 'model', code: 'model_not_found' });

    const large = await client.audio.transcriptions
      .create({ file: await toFile(Buffer.alloc(6 * 1024 * 1024), 'large.wav'), model: 'whisper-1' })
      .catch((error: unknown) => error);
    expect(large).toBeInstanceOf(OpenAI.APIError);
    expect(large).toMatchObject({
      status: 413,
      code: 'payload_too_large',
      message: `413 ${Messages.envelopeTooLarge}`,
    });

    const holder = await holdStream(gateway, 'sdk-stream', AUTH);
    const limited = await client.audio.transcriptions
      .create(
        { file: await toFile(jfk, 'jfk.wav'), model: 'whisper-1' },
        { headers: { 'X-Stream-ID': 'sdk-stream' } },
      )
      .catch((error: unknown) => error);
    holder.destroy();
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect(limited).toMatchObject({ status: 429, type: 'rate_limit_error', code: 'stream_busy' });
  });
});
