/**
 * `POST /transcribe` (raw PCM for rolling live capture) and `DELETE /streams/{stream_id}`,
 * validated in the contract's order: 403, 415, 400 language/mode/context/IDs, 429 admission,
 * 413/408 while reading, 400 PCM/window, retry cache (409), then the queue (429 deadline, 500).
 */
import { Router } from 'express';
import type { Admission } from '../domain/admission.js';
import { HttpError, Messages } from '../domain/errors.js';
import { decodePcm, MAX_PCM_BYTES } from '../domain/pcm.js';
import { checkWindow, LEGACY_STREAM, parseIds, parseNativeQuery, parseRoom } from '../domain/request.js';
import { nativeResponse } from '../domain/responses.js';
import { readBody } from './body.js';
import { decodeAndReply } from './decode.js';
import type { ApiGuards } from './guards.js';

/**
 * The capture page's own lag figures (X-Caption-Backlog, X-Caption-Skipped: seconds): only for
 * /health and the metrics, so a missing or malformed value is ignored, never refused.
 */
function reportLag(admission: Admission, streamId: string, backlog?: string, skipped?: string): void {
  const seconds = (value?: string) => {
    const n = value === undefined ? Number.NaN : Number(value);
    return Number.isFinite(n) && n >= 0 && n < 86_400 ? n : undefined;
  };
  const behind = seconds(backlog);
  if (behind !== undefined) admission.lag.backlog(streamId, behind);
  const gone = seconds(skipped);
  if (gone !== undefined && gone > 0) admission.lag.onSkip('native', gone);
}

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
    reportLag(admission, streamId, req.get('x-caption-backlog'), req.get('x-caption-skipped'));
    const room = parseRoom(req.get('x-caption-room'));
    await decodeAndReply(admission, res, { requestId: ids.requestId, streamId, room }, async () => {
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
        continues: options.window,
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
    admission.lag.forget(id);
    res.json({ closed: id });
  });

  return router;
}
