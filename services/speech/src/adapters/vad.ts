/**
 * Silero VAD for realtime sessions: one whisper.cpp VAD instance per connection (each keeps the
 * LSTM state of its own stream and runs on its own native thread), loaded from the model file
 * the gateway prepares (CAPTION_REALTIME_VAD_MODEL).
 */
import { existsSync } from 'node:fs';
import type { RealtimeAvailability } from '@live-captions/protocol';
import { WhisperVad } from '@live-captions/whisper';
import type { StreamingVad } from '../domain/realtime/vad-feed.js';

export interface OwnedVad extends StreamingVad {
  free(): void;
}

export interface VadSource {
  /** A fresh stream's VAD; rejects while (or if) the model file is not available. */
  open(): Promise<OwnedVad>;
  /** Whether `open()` would find the model file now, and why not (the health report). */
  availability(): Promise<RealtimeAvailability>;
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
  /** The model file, or why there is none: the one gate of sessions and of the health report. */
  async function file(): Promise<string> {
    if (failedAt !== undefined && Date.now() - failedAt >= RETRY_MS && typeof prepare === 'function') {
      failedAt = undefined;
      path = again();
      path.catch(() => {
        failedAt = Date.now();
      });
    }
    const found = await path;
    if (found === undefined) throw new Error('no VAD model configured');
    if (!existsSync(found)) throw new Error(`VAD model ${found} not found`);
    return found;
  }
  return {
    async open() {
      const vad = await WhisperVad.load(await file(), { threads: 1 });
      return {
        next: async (samples) => (await vad.detectNext(samples)).probabilities,
        free: () => vad.free(),
      };
    },
    async availability() {
      try {
        await file();
        return { available: true, reason: null };
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return { available: false, reason: `the VAD model is not loaded (${why})` };
      }
    },
  };
}
