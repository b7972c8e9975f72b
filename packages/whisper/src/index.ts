export { currentSpinSetting, setSpinCount } from './binding.js';
export { WhisperError, type WhisperErrorCode } from './errors.js';
export { engineBuildInfo, type LoadOptions, type ModelInfo, WhisperModel, WhisperState } from './model.js';
export { DEFAULT_SPIN_COUNT, LIBGOMP_SPIN_COUNT, MAX_SPIN_COUNT, type SpinSetting } from './openmp.js';
export { audioContextForClip, type DecodeOptions, SAMPLE_RATE, TEMPERATURE_INCREMENT } from './options.js';
export type { Segment, Token, Transcription } from './transcription.js';
export { type SpeechDetection, type SpeechSegment, type VadOptions, WhisperVad } from './vad.js';
