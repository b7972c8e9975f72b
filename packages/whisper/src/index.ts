export { WhisperError, type WhisperErrorCode } from './errors.js';
export { engineBuildInfo, type LoadOptions, type ModelInfo, WhisperModel, WhisperState } from './model.js';
export { audioContextForClip, type DecodeOptions, SAMPLE_RATE } from './options.js';
export type { Segment, Token, Transcription } from './transcription.js';
