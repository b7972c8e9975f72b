/**
 * Which language and mode a model serves, with the refusals' words: the speech gateway checks a
 * request before queueing it, the worker checks the job again, and the capture page offers only
 * what both accept. English-only models transcribe English, auto-detect included (whisper then
 * only ever detects English); translation needs a multilingual model.
 */
import { isWhisperLanguage, type TaskMode, WHISPER_LANGUAGES } from '@live-captions/protocol';

export const TASK_MODES: readonly TaskMode[] = ['transcribe', 'translate', 'both'];

/** The refusals' messages (speech-contract.md, steps 3-5). */
export const LanguageModeMessages = {
  language: 'Unknown language code',
  mode: 'Mode must be transcribe, translate, or both',
  englishOnly: 'This model is English-only: use a multilingual model for this language or translation',
} as const;

/** What the rule needs to know of a model (an `EngineInfo` or a health report has it). */
export interface ModelAbilities {
  multilingual: boolean;
  languages: readonly string[];
  modes: readonly TaskMode[];
}

/** The abilities of a model that is, or is not, multilingual. */
export function modelAbilities(multilingual: boolean): ModelAbilities {
  return multilingual
    ? { multilingual, languages: WHISPER_LANGUAGES, modes: TASK_MODES }
    : { multilingual, languages: ['en'], modes: ['transcribe'] };
}

export type LanguageModeCheck =
  | { ok: true; language: string; mode: TaskMode }
  | {
      ok: false;
      reason: keyof typeof LanguageModeMessages;
      /** The request field to blame. */
      param: 'language' | 'mode';
      message: string;
    };

const refuse = (
  reason: keyof typeof LanguageModeMessages,
  param: 'language' | 'mode',
): LanguageModeCheck => ({
  ok: false,
  reason,
  param,
  message: LanguageModeMessages[reason],
});

/** The language code, the mode, then what an English-only model can do, in the contract's order. */
export function checkLanguageAndMode(
  language: unknown,
  mode: unknown,
  model: ModelAbilities,
): LanguageModeCheck {
  if (typeof language !== 'string' || (language !== 'auto' && !isWhisperLanguage(language))) {
    return refuse('language', 'language');
  }
  if (typeof mode !== 'string' || !TASK_MODES.includes(mode as TaskMode)) return refuse('mode', 'mode');
  const languageOk = language === 'auto' || model.languages.includes(language);
  if (!model.multilingual && (!languageOk || mode !== 'transcribe')) return refuse('englishOnly', 'language');
  if (!languageOk) return refuse('language', 'language');
  if (!model.modes.includes(mode as TaskMode)) return refuse('englishOnly', 'mode');
  return { ok: true, language, mode: mode as TaskMode };
}
