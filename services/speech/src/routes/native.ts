/**
 * `POST /transcribe` (raw PCM for rolling live capture) and `DELETE /streams/{stream_id}`,
 * validated in the contract's order: 403, 415, 400 language/mode/context/IDs, 429 admission,
 * 413/408 while reading, 400 PCM/window, retry cache (409), then the queue (429 deadline, 500).
 */
import { Router } from 'express';
import type { Admission } from '../domain/admission.js';
import { HttpError, Messages } from '../domain/errors.js';
import { decodePcm, MAX_PCM_BYTES } from '../domain/pcm.js';
import { checkWindow, LEGACY_STREAM, parseIds, parseNativeQuery } from '../domain/request.js';
import { nativeResponse } from '../domain/responses.js';
import { readBody } from './body.js';
import { decodeAndReply } from './decode.js';
import type { ApiGuards } from './guards.js';

export function nativeRoutes(admission: Admission, guards: ApiGuards, uploadTimeoutMs: number): Router {
  const router = Router();

  router.post('/transcribe', ...guards.local, async function transcribe(req, res) {
    if ((req.get('content-type') ?? '').trim().toLowerCase() !== 'application/octet-stream') {
      throw new HttpError(415, Messages.contentType);
    }
    const engine = await admission.engine();
    const options = parseNativeQuery(req.query, engine);
    const ids = parseIds(req.get('x-request-id'), req.get('x-stream-id'));
    const streamId = ids.streamId ?? LEGACY_STREAM;
    await decodeAndReply(admission, res, { requestId: ids.requestId, streamId }, async () => {
      const body = await readBody(req, res, {
        maxBytes: MAX_PCM_BYTES,
        timeoutMs: uploadTimeoutMs,
        tooLarge: () => new HttpError(413, Messages.tooLong),
      });
      const samples = decodePcm(body);
      checkWindow(options, samples.length);
      return {
        options,
        audio: samples,
        body,
        route: 'native',
        reply: (result) => ({
          status: 200,
          contentType: 'application/json',
          body: JSON.stringify(nativeResponse(result, ids.requestId, streamId)),
        }),
      };
    });
  });

  router.delete('/streams/:stream_id', ...guards.local, async function closeStream(req, res) {
    const id = String(req.params.stream_id);
    if ((await admission.closeStream(id)) === 'busy') throw new HttpError(409, Messages.busyClose);
    res.json({ closed: id });
  });

  return router;
}
