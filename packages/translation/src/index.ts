export { checkEngineAddress, PLATFORM_HOSTS } from './address.js';
export { type ChrFOptions, chrF } from './chrf.js';
export { createEngine, engineEndpoint, maskKey } from './create-engine.js';
export { DEEPL_MAX_BODY_BYTES, DEEPL_MAX_TEXTS } from './engines/deepl.js';
export { EngineAddressError, EngineError, EngineSettingsError } from './errors.js';
export {
  canonicalLanguage,
  englishName,
  fromApertium,
  fromDeepL,
  fromLibreTranslate,
  primaryLanguage,
  toApertium,
  toDeepLSource,
  toDeepLTarget,
  toLibreTranslate,
} from './languages.js';
export { type Piece, splitSentences } from './sentences.js';
export { protectTerms } from './terms.js';
export {
  type CaptionId,
  clearTrackState,
  emptyTrackState,
  type Publication,
  type SourceCaption,
  TRACK_LIMITS,
  type TrackState,
  type TranslateTexts,
  translateStep,
  translateText,
} from './track.js';
export type {
  CreateEngineOptions,
  EngineKind,
  EngineSettings,
  LanguageOption,
  TranslationEngine,
  TranslationRequest,
} from './types.js';
