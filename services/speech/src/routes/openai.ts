/**
 * `/v1`: the OpenAI audio API (models, transcriptions, translations) for uploaded WAV files.
 * Errors carry `detail` plus the OpenAI `error` object (see middleware `sendError`); fields are
 * validated in `domain/openai-request.ts`, answers shaped in `domain/transcript.ts`.
 */
import { randomUUID } from 'node:crypto';
import type { InferenceResult } from '@live-captions/protocol';
import { type Request, type Response, Router } from 'express';
import type { Admission } from '../domain/admission.js';
import { HttpError, Messages } from '../domain/errors.js';
import { LIST_FIELDS, type OpenAiOptions, parseOpenAiFields, type Task } from '../domain/openai-request.js';
import { checkLanguageAndMode, parseIds } from '../domain/request.js';
import type { CachedResponse } from '../domain/streams.js';
import { jsonTranscript, srt, streamBody, verboseJson, vtt } from '../domain/transcript.js';
import { decodeWavUpload } from '../domain/wav.js';
import { decodeAndReply } from './decode.js';
import type { ApiGuards } from './guards.js';
import { readMultipart } from './multipart.js';
import { EVENT_STREAM, transcriptStream } from './transcript-stream.js';

export { COMPAT_ALIAS } from '../domain/openai-request.js';

const TEXT = 'text/plain; charset=utf-8';

function answer(task: Task, options: OpenAiOptions, result: InferenceResult): CachedResponse {
  const ok = (contentType: string, body: string): CachedResponse => ({ status: 200, contentType, body });
  if (options.stream) return ok(EVENT_STREAM, streamBody(result, options.logprobs));
  switch (options.responseFormat) {
    case 'text':
      return ok(TEXT, result.text);
    case 'srt':
      return ok(TEXT, srt(result));
    case 'vtt':
      return ok(TEXT, vtt(result));
    case 'verbose_json': {
      const body = verboseJson(
        result,
        task === 'translations' ? 'translate' : 'transcribe',
        options.granularities,
      );
      return ok('application/json', JSON.stringify(body));
    }
    default:
      return ok('application/json', JSON.stringify(jsonTranscript(result, options.logprobs)));
  }
}

export function openAiRoutes(admission: Admission, guards: ApiGuards, uploadTimeoutMs: number): Router {
  const router = Router();
  const created = Math.floor(Date.now() / 1000);

  router.get('/v1/models', ...guards.api, async function listModels(_req, res) {
    const engine = await admission.engine();
    res.json({ object: 'list', data: [{ id: engine.model, object: 'model', created, owned_by: 'local' }] });
  });

  const audio = (task: Task) =>
    async function createAudio(req: Request, res: Response) {
      if (!(req.get('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')) {
        throw new HttpError(415, Messages.multipart);
      }
      const engine = await admission.engine();
      const ids = parseIds(req.get('x-request-id'), req.get('x-stream-id'));
      // Without X-Stream-ID the call gets a temporary session, closed when its request ends.
      const streamId = ids.streamId ?? `v1-${randomUUID()}`;
      await decodeAndReply(
        admission,
        res,
        { requestId: ids.requestId, streamId, temporary: ids.streamId === undefined },
        async () => {
          const { fields, lists, file } = await readMultipart(
            req,
            res,
            { timeoutMs: uploadTimeoutMs },
            LIST_FIELDS,
          );
          const options = parseOpenAiFields(task, fields, lists, file !== undefined, engine.model);
          const mode = task === 'translations' ? 'translate' : 'transcribe';
          const { language } = checkLanguageAndMode(options.language, mode, engine);
          const wav = decodeWavUpload(file!.buffer);
          return {
            options: {
              language,
              mode,
              window: false,
              final: true,
              contextSeconds: 0,
              ...(options.prompt ? { prompt: options.prompt } : {}),
              offline: { temperature: options.temperature },
            },
            audio: wav.samples,
            body: file!.buffer,
            route: `v1-${task}`,
            // Everything that changes the answer but is not a decode option: part of the retry key.
            extra: JSON.stringify([options, task]),
            reply: (result) => answer(task, options, result),
            ...(options.stream ? { stream: transcriptStream(res, options.logprobs) } : {}),
          };
        },
      );
    };

  router.post('/v1/audio/transcriptions', ...guards.api, audio('transcriptions'));
  router.post('/v1/audio/translations', ...guards.api, audio('translations'));
  return router;
}
