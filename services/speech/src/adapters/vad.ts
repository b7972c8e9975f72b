/**
 * Silero VAD for realtime sessions: one whisper.cpp VAD instance per connection (each keeps the
 * LSTM state of its own stream and runs on its own native thread), loaded from the model file
 * the gateway prepared at start (CAPTION_REALTIME_VAD_MODEL).
 */
import { WhisperVad } from '@live-captions/whisper';
import type { StreamingVad } from '../domain/realtime/connection.js';

export interface OwnedVad extends StreamingVad {
  free(): void;
}

export interface VadSource {
  /** A fresh stream's VAD; rejects while (or if) the model file is not available. */
  open(): Promise<OwnedVad>;
}

/** `path` resolves once the model file is ready (downloaded or found); undefined: no VAD. */
export function sileroVad(path: Promise<string | undefined>): VadSource {
  // Failures are reported by whoever prepared the file; here they only refuse sessions.
  path.catch(() => undefined);
  return {
    async open() {
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
