/**
 * `stream=true` on `/v1/audio/transcriptions`: `text/event-stream` with one
 * `transcript.text.delta` per decoded segment, written as the engine reports it, then one
 * `transcript.text.done`. The status line waits for the first segment, so refusals that come
 * before any text (queue deadline, failures) are still ordinary HTTP errors.
 */
import type { InferenceProgress, InferenceResult } from '@live-captions/protocol';
import type { Response } from 'express';
import type { CachedResponse } from '../domain/streams.js';
import { deltaEvent, doneEvent } from '../domain/transcript.js';

export const EVENT_STREAM = 'text/event-stream; charset=utf-8';

export function transcriptStream(res: Response, withLogprobs: boolean) {
  /** Segments written so far; deltas go out strictly in order. */
  let written = 0;
  return {
    progress({ offset, segments }: InferenceProgress): void {
      if (res.destroyed) return;
      segments.forEach((segment, i) => {
        // A gap (a progress event lost on the way) is filled from the result at the end.
        if (offset + i !== written) return;
        if (!res.headersSent) {
          res.status(200).setHeader('Content-Type', EVENT_STREAM);
          res.flushHeaders();
        }
        res.write(deltaEvent(segment, written, withLogprobs));
        written += 1;
      });
    },
    finish(result: InferenceResult, response: CachedResponse): void {
      if (!res.headersSent) {
        res.status(response.status).type(response.contentType).send(response.body);
        return;
      }
      const rest = (result.segments ?? [])
        .slice(written)
        .map((segment, i) => deltaEvent(segment, written + i, withLogprobs));
      res.end(rest.join('') + doneEvent(result, withLogprobs));
    },
  };
}
