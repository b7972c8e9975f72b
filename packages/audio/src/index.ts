export {
  checkLanguageAndMode,
  type LanguageModeCheck,
  LanguageModeMessages,
  type ModelAbilities,
  modelAbilities,
  TASK_MODES,
} from './language-mode.js';
export {
  G711_RATE,
  MAX_CLIP_SAMPLES,
  MAX_CLIP_SECONDS,
  MAX_PROMPT_CHARS,
  MIN_CLIP_SAMPLES,
  MIN_CLIP_SECONDS,
  MIN_UNFINISHED_SECONDS,
  REALTIME_RATE,
  RELAY_TEXT_MAX,
  SAMPLE_RATE,
  UNFINISHED_TAIL_SECONDS,
} from './limits.js';
export { base64, decodeFloat32, decodePcm16, encodeFloat32, encodePcm16 } from './pcm.js';
export { concatSamples, ROLLOFF, resample, StreamResampler } from './resample.js';
export {
  CLIP_BOUNDS,
  type ClipBounds,
  type DecodedWav,
  decodeWav,
  encodeWav,
  WAV_MAX_RATE,
  WAV_MIN_RATE,
  type WavEncoding,
  WavError,
  type WavFormat,
  type WavProblem,
} from './wav.js';
