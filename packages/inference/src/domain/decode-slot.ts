import type { DecodeOptions, SpeechSegment, Transcription } from '@live-captions/whisper';
import type { GuardSettings } from './guards/index.js';

/**
 * What a job needs of the engine: one decode slot and the model's abilities. Its own module, so
 * that the live path (run-job.ts) and the offline path (offline-job.ts) both use it and neither
 * imports the other for it.
 */
export interface DecodeSlot {
  multilingual: boolean;
  decode(audio: Float32Array, options: DecodeOptions): Promise<Transcription>;
  /** Speech regions of a clip, when the engine has a VAD model (off the JS thread, own state). */
  detectSpeech?(audio: Float32Array): Promise<SpeechSegment[]>;
  /** The hallucination and loop guards (default: DEFAULT_GUARDS). */
  guards?: GuardSettings;
}
