/**
 * `/v1`: the OpenAI audio subset (models, transcriptions, translations) for uploaded WAV files.
 * Errors carry `detail` plus the OpenAI `error` object (see middleware `sendError`).
 */
import { randomUUID } from 'node:crypto';
import { type Request, type Response, Router } from 'express';
import type { Admission } from '../domain/admission.js';
import { HttpError, Messages, unknownField, unknownModel } from '../domain/errors.js';
import { checkLanguageAndMode, parseIds } from '../domain/request.js';
import { decodeWav } from '../domain/wav.js';
import { decodeAndReply } from './decode.js';
import type { ApiGuards } from './guards.js';
import { readMultipart } from './multipart.js';

/** The hosted-model alias that selects the loaded local model. */
export const COMPAT_ALIAS = 'whisper-1';

const FIELDS = new Set(['file', 'model', 'language', 'response_format', 'temperature', 'prompt', 'stream']);

type Task = 'transcriptions' | 'translations';

function validateFields(task: Task, fields: Record<string, string>, hasFile: boolean, model: string) {
  for (const name of Object.keys(fields)) {
    if (!FIELDS.has(name)) throw new HttpError(400, unknownField(name), { param: name });
  }
  if (!hasFile) throw new HttpError(400, Messages.fileMissing, { param: 'file' });
  if (fields.model === undefined || fields.model === '')
    throw new HttpError(400, Messages.modelMissing, { param: 'model' });
  if (fields.model !== model && fields.model !== COMPAT_ALIAS) {
    throw new HttpError(400, unknownModel(model), { param: 'model', code: 'model_not_found' });
  }
  if (task === 'translations' && fields.language !== undefined) {
    throw new HttpError(400, Messages.languageOnTranslation, { param: 'language' });
  }
  const responseFormat = fields.response_format ?? 'json';
  if (responseFormat !== 'json' && responseFormat !== 'text') {
    throw new HttpError(400, Messages.responseFormat, { param: 'response_format' });
  }
  if (fields.stream !== undefined && fields.stream !== 'false') {
    throw new HttpError(400, Messages.streaming, { param: 'stream' });
  }
  if (
    fields.temperature !== undefined &&
    !(fields.temperature.trim() !== '' && Number(fields.temperature) === 0)
  ) {
    throw new HttpError(400, Messages.temperature, { param: 'temperature' });
  }
  if (fields.prompt !== undefined && fields.prompt !== '') {
    throw new HttpError(400, Messages.prompt, { param: 'prompt' });
  }
  return responseFormat;
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
          const { fields, file } = await readMultipart(req, res, { timeoutMs: uploadTimeoutMs });
          const responseFormat = validateFields(task, fields, file !== undefined, engine.model);
          const mode = task === 'translations' ? 'translate' : 'transcribe';
          const { language } = checkLanguageAndMode(fields.language ?? 'auto', mode, engine);
          const wav = decodeWav(file!.buffer);
          return {
            options: { language, mode, window: false, final: true, contextSeconds: 0 },
            audio: wav.samples,
            body: file!.buffer,
            route: `v1-${task}`,
            extra: responseFormat,
            reply: (result) =>
              responseFormat === 'text'
                ? { status: 200, contentType: 'text/plain; charset=utf-8', body: result.text }
                : {
                    status: 200,
                    contentType: 'application/json',
                    body: JSON.stringify({ text: result.text }),
                  },
          };
        },
      );
    };

  router.post('/v1/audio/transcriptions', ...guards.api, audio('transcriptions'));
  router.post('/v1/audio/translations', ...guards.api, audio('translations'));
  return router;
}
