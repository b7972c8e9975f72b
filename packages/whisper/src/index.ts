export {
  DEFAULT_MODEL_BASE_URL,
  defaultModelDir,
  MODEL_CATALOG,
  ModelError,
  type ModelErrorCode,
  type ModelSpec,
  modelFile,
  modelNames,
  modelSpec,
  type ResolvedModel,
  resolveModel,
  SILERO_VAD,
} from './catalog.js';
export {
  type DownloadEvent,
  type DownloadOptions,
  downloadModel,
  type EnsureModelOptions,
  ensureModel,
  sha1File,
} from './download.js';
export { WhisperError, type WhisperErrorCode } from './errors.js';
export { engineBuildInfo, type LoadOptions, type ModelInfo, WhisperModel, WhisperState } from './model.js';
export { audioContextForClip, type DecodeOptions, SAMPLE_RATE, TEMPERATURE_INCREMENT } from './options.js';
export type { Segment, Token, Transcription } from './transcription.js';
export { type SpeechDetection, type SpeechSegment, type VadOptions, WhisperVad } from './vad.js';
