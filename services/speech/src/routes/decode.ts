/**
 * The part of a decode request that the native route and `/v1` share once the IDs are parsed:
 * admission of the stream, the retry cache, the queued decode and the answer. Each route brings
 * only its own reading and validation of the upload, and its response body.
 */
import type { InferenceProgress, InferenceResult } from '@live-captions/protocol';
import type { Response } from 'express';
import type { Admission } from '../domain/admission.js';
import { HttpError, Messages } from '../domain/errors.js';
import { type DecodeOptions, requestSignature } from '../domain/request.js';
import type { CachedResponse } from '../domain/streams.js';

export interface DecodeTarget {
  /** Empty when the client sent none: the result is then not cached. */
  requestId: string;
  streamId: string;
  /** The caption room the stream captions (`X-Caption-Room`): its turn at the decode slots. */
  room?: string;
  /** A `/v1` call without X-Stream-ID: its stream closes when the request ends. */
  temporary?: boolean;
}

/** An upload read and validated by its route, ready to queue. */
export interface PreparedDecode {
  options: DecodeOptions;
  audio: Float32Array;
  /** The raw upload: with `route` and `extra` it makes the request signature of the retry cache. */
  body: Buffer;
  route: string;
  /**
   * A live window: decoded after the text the stream committed last (a repeat of it is a loop),
   * and its own text is what the stream's next window is decoded after.
   */
  continues?: boolean;
  extra?: string;
  /** The 200 answer, which a retry with the same request ID gets again from the cache. */
  reply: (result: InferenceResult) => CachedResponse;
  /** A streamed answer: gets the decode's progress, and answers itself once the result is in. */
  stream?: {
    progress(progress: InferenceProgress): void;
    finish(result: InferenceResult, response: CachedResponse): void;
  };
}

function sendCached(res: Response, cached: CachedResponse): void {
  res.status(cached.status).type(cached.contentType).send(cached.body);
}

/**
 * Admits the stream, then runs `prepare` (reading the upload) while the stream is held, so a
 * second request on it gets 429 before its body is read; the stream is released however the
 * request ends.
 */
export async function decodeAndReply(
  admission: Admission,
  res: Response,
  target: DecodeTarget,
  prepare: () => Promise<PreparedDecode>,
): Promise<void> {
  const { requestId, streamId } = target;
  const admitted = await admission.admit(streamId, target.temporary);
  let answer: CachedResponse;
  /** A streamed answer's last event; its deltas went out while the decode ran. */
  let finishStream: (() => void) | undefined;
  let committed: string | undefined;
  try {
    const { options, audio, body, route, extra, reply, stream, continues } = await prepare();
    const previous = continues && admitted.previousText ? { previousText: admitted.previousText } : {};
    // Only a request ID makes a result cacheable: no hashing without one.
    const signature = requestId ? requestSignature(route, body, options, extra) : '';
    const cached = await admission.cached(admitted, requestId, signature);
    if (cached.kind === 'conflict') throw new HttpError(409, Messages.conflict);
    if (cached.kind === 'hit') answer = cached.response;
    else {
      // A client that disconnects from here on does not cancel the decode: its result is cached.
      const result = await admission.decode(
        // `requestLog` (app.ts) sets the id before any route runs.
        {
          ...options,
          requestId,
          streamId,
          ...(target.room ? { room: target.room } : {}),
          correlationId: res.locals.correlationId,
          ...previous,
        },
        audio,
        stream ? (progress) => stream.progress(progress) : undefined,
      );
      const response = reply(result);
      answer = response;
      if (continues) committed = result.text.trim();
      await admission.remember(admitted, requestId, signature, response);
      if (stream) finishStream = () => stream.finish(result, response);
    }
  } finally {
    await admission.release(admitted, committed);
  }
  // The stream is free before its client hears back (on every gateway sharing the streams), so
  // the client's next window is never refused as busy.
  if (res.destroyed) return;
  if (finishStream) finishStream();
  else sendCached(res, answer);
}
