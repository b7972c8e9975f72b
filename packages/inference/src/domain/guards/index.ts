export { type GuardContext, guardSegments } from './guard.js';
export { compressionRatio, cutLoops } from './loops.js';
export { isKnownPhrase, PHRASE_LANGUAGES } from './phrases.js';
export {
  addReports,
  DEFAULT_GUARDS,
  emptyReport,
  type GuardReport,
  type GuardSettings,
  trimmed,
} from './settings.js';
