/**
 * Silero VAD for realtime sessions: one whisper.cpp VAD instance per connection (each keeps the
 * LSTM state of its own stream and runs on its own native thread), loaded from the model file
 * the gateway prepares (CAPTION_REALTIME_VAD_MODEL).
 */
import { WhisperVad } from '@live-captions/whisper';
import type { StreamingVad } from '../domain/realtime/vad-feed.js';

export interface OwnedVad extends StreamingVad {
  free(): void;
}

export interface VadSource {
  /** A fresh stream's VAD; rejects while (or if) the model file is not available. */
  open(): Promise<OwnedVad>;
}

/** After a failed preparation, sessions are refused for this long before it is tried again. */
const RETRY_MS = 10_000;

/**
 * `prepare` resolves with the model file once it is ready (downloaded or found), or undefined
 * for no VAD. A failed preparation is tried again, at most every 10 s, as sessions ask: in
 * compose the worker downloads the file into the models volume the gateway reads, possibly after
 * the gateway started.
 */
export function sileroVad(
  prepare: Promise<string | undefined> | (() => Promise<string | undefined>),
): VadSource {
  const again = typeof prepare === 'function' ? prepare : () => prepare;
  let path = again();
  let failedAt: number | undefined;
  // Failures are reported by whoever prepared the file; here they only refuse sessions.
  path.catch(() => {
    failedAt = Date.now();
  });
  return {
    async open() {
      if (failedAt !== undefined && Date.now() - failedAt >= RETRY_MS && typeof prepare === 'function') {
        failedAt = undefined;
        path = again();
        path.catch(() => {
          failedAt = Date.now();
        });
      }
      const file = await path;
      if (file === undefined) throw new Error('no VAD model configured');
      const vad = await WhisperVad.load(file, { threads: 1 });
      return {
        next: async (samples) => (await vad.detectNext(samples)).probabilities,
        free: () => vad.free(),
      };
    },
  };
}
