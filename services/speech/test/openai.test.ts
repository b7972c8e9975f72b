/**
 * /v1 (OpenAI audio subset) against the real in-process engine (synthetic tiny model): the model
 * list and field validation, with the OpenAI `error` object.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { duplicateField, Messages, unknownField, unknownModel } from '../src/domain/errors.js';
import type { RunningGateway } from './helpers/gateway.js';
import { AUTH, expectOpenAiError, short, uploadTo, useOpenAiStack } from './helpers/openai-stack.js';

let gateway: RunningGateway;
useOpenAiStack((stack) => ({ gateway } = stack));
const upload = (path?: string, file?: Buffer) => uploadTo(gateway, path, file);

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
