/**
 * Known non-speech phrases: what Whisper says on silence, noise and music because the subtitles it
 * was trained on ended that way. Compared without case, punctuation or spaces, so "Thank you for
 * watching!" and "thank you for watching" are the same phrase.
 */
const PHRASES: Record<string, string[]> = {
  en: [
    'Thank you for watching',
    'Thanks for watching',
    'Thank you for watching, please subscribe',
    'Please subscribe',
    'Subtitles by the Amara.org community',
    'Transcription by CastingWords',
    'Thank you',
    'Thank you very much',
    'Bye',
    'You',
  ],
  de: [
    'Untertitel im Auftrag des ZDF, 2017',
    'Untertitel der Amara.org-Community',
    'Vielen Dank fürs Zuschauen',
  ],
  fr: [
    'Sous-titrage Société Radio-Canada',
    "Merci d'avoir regardé",
    "Sous-titres réalisés par la communauté d'Amara.org",
  ],
  es: ['Gracias por ver el video', 'Subtítulos realizados por la comunidad de Amara.org', 'Gracias'],
  it: ['Sottotitoli creati dalla comunità Amara.org', 'Grazie per la visione'],
  nl: ['Ondertiteld door de Amara.org gemeenschap', 'Bedankt voor het kijken'],
  pt: ['Obrigado por assistir', 'Legendas pela comunidade Amara.org'],
  ja: ['ご視聴ありがとうございました', 'ありがとうございました'],
  zh: ['请不吝点赞 订阅 转发 打赏支持明镜与点点栏目', '字幕由Amara.org社区提供', '谢谢观看'],
  ko: ['시청해주셔서 감사합니다', '구독과 좋아요 부탁드립니다'],
  ru: ['Спасибо за просмотр', 'Продолжение следует'],
};

/** Comparison key: lower case, letters and digits only (scripts without spaces compare alike). */
const key = (text: string): string =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

const KEYS = new Map(Object.entries(PHRASES).map(([language, list]) => [language, new Set(list.map(key))]));

/** Whether `text` is a known phrase of `language`, or of English, which Whisper falls back to. */
export function isKnownPhrase(text: string, language: string | null): boolean {
  const k = key(text);
  if (k === '') return false;
  return (KEYS.get(language ?? 'en')?.has(k) ?? false) || (KEYS.get('en')?.has(k) ?? false);
}

/** Languages with a phrase list. */
export const PHRASE_LANGUAGES = Object.keys(PHRASES);
