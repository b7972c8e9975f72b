/**
 * The languages of an output room as readers choose them (pure): the original (whatever was
 * spoken: every caption not labelled `translation`) and each translation's `ln` (the outputs
 * service's translation stage, or the capture page's own Whisper translation, `en`). The same
 * tracks as the outputs API's (`original` or a BCP-47 code), so a link's `ln=es` means the same
 * on every page. Names are given in their own language ("español", "català"): a reader looking
 * for their language finds it even when they cannot read the page's.
 */

/** The track of what was spoken (the outputs API's name for it). */
export const ORIGINAL = 'original';
/** Every language together (the audience page's last option). */
export const ALL_LANGUAGES = 'all';
/** A translation whose caption carries no usable `ln` (not from our stage; shown, never linked). */
export const UNNAMED_TRANSLATION = 'translation';

const TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/;

/** The canonical form of a BCP-47 tag (`pt-br` -> `pt-BR`), or undefined when it is none. */
export function canonicalLanguage(tag: string | undefined): string | undefined {
  const value = tag?.trim();
  if (!value || !TAG.test(value)) return undefined;
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    return undefined;
  }
}

/** A caption's track: `original`, or its translation's canonical language. */
export function trackKeyOf(caption: { label?: string | undefined; ln?: string | undefined }): string {
  if (caption.label !== 'translation') return ORIGINAL;
  return canonicalLanguage(caption.ln) ?? UNNAMED_TRANSLATION;
}

/**
 * A track from a link's `ln=` (`original`, `all` or a language tag), or undefined when it is none
 * of them. (`all` is also a three-letter tag's shape: it means every language here.)
 */
export function linkTrack(value: string | undefined): string | undefined {
  const lower = value?.trim().toLowerCase();
  if (lower === ORIGINAL || lower === ALL_LANGUAGES) return lower;
  return canonicalLanguage(value);
}

/** The language's name in that language ("español"), falling back to the code. */
export function nativeName(code: string): string {
  try {
    const name = new Intl.DisplayNames([code], { type: 'language' }).of(code);
    return name && name !== code ? name : code;
  } catch {
    return code;
  }
}

/**
 * The `lang` attribute for a code, or undefined: tags with a two-letter language (ISO 639-1), which
 * every browser and checker knows. A three-letter one (`hbs`, which Apertium reports) is left
 * without: a `lang` a screen reader or axe does not know is worse than none.
 */
export function langAttribute(code: string | undefined): string | undefined {
  // The code as given (Intl canonicalizes some three-letter ones into others: `hbs` -> `sr-Latn`).
  if (!code || !/^[A-Za-z]{2}(-|$)/.test(code.trim())) return undefined;
  return canonicalLanguage(code);
}

/** A language as the select offers it. */
export interface LanguageChoice {
  key: string;
  label: string;
  /** The `lang` of the option's text (so a screen reader says "español" in Spanish). */
  lang?: string;
}

/** A track's name: the original by its language when its captions carry one, else "Original". */
export function trackName(key: string, originalLn?: string): string {
  if (key === ORIGINAL) {
    const code = canonicalLanguage(originalLn);
    return code ? `${nativeName(code)} (original)` : 'Original';
  }
  if (key === UNNAMED_TRANSLATION) return 'Translation';
  if (key === ALL_LANGUAGES) return 'All languages';
  return nativeName(key);
}

/**
 * What the select offers: the original first, then the translations in the order they appeared,
 * and "All languages" once there are several.
 */
export function languageChoices(keys: readonly string[], originalLn?: string): LanguageChoice[] {
  const choice = (key: string): LanguageChoice => {
    const lang =
      key === ORIGINAL
        ? langAttribute(originalLn)
        : key === ALL_LANGUAGES || key === UNNAMED_TRANSLATION
          ? undefined
          : langAttribute(key);
    return { key, label: trackName(key, originalLn), ...(lang ? { lang } : {}) };
  };
  const translations = keys.filter((key) => key !== ORIGINAL && key !== ALL_LANGUAGES);
  const out = [choice(ORIGINAL), ...[...new Set(translations)].map(choice)];
  if (out.length > 1) out.push(choice(ALL_LANGUAGES));
  return out;
}

/**
 * The track to show for the reader's choice among those present: the chosen one once the room
 * carries it; until then the original, with a line saying so (`missing`).
 */
export function shownTrack(chosen: string, present: ReadonlySet<string>): { show: string; missing?: string } {
  if (chosen === ORIGINAL || chosen === ALL_LANGUAGES || present.has(chosen)) return { show: chosen };
  return { show: ORIGINAL, missing: chosen };
}

/** The one line shown while the chosen language has not come (yet). */
export function missingLine(chosen: string): string {
  return `${trackName(chosen)} is not here yet: showing the original until it comes.`;
}

/** Where the audience page remembers a room's choice (localStorage, this device). */
export const languageKey = (room: string) => `live-captions.audience.language.${room}`;

/** A remembered choice read back defensively (hand-edited or old values count as none). */
export function parseRemembered(value: string | null | undefined): string | undefined {
  return value === null ? undefined : linkTrack(value);
}

/**
 * The choice a page starts with: the link's `ln` (a QR code handed out in the room), else what
 * this device remembered for the room, else the original.
 */
export function initialTrack(fromLink: string | undefined, remembered: string | undefined): string {
  return linkTrack(fromLink) ?? remembered ?? ORIGINAL;
}

/**
 * The page's address with `ln` set to the choice (removed for the original), so that a reload
 * (which reads the address first) keeps the choice, and a copied address carries it.
 */
export function addressWithTrack(href: string, track: string): string {
  const url = new URL(href);
  const fragment = new URLSearchParams(url.hash.replace(/^#/, ''));
  if (track === ORIGINAL || track === ALL_LANGUAGES) fragment.delete('ln');
  else fragment.set('ln', track);
  const rest = fragment.toString();
  url.hash = rest ? `#${rest}` : '';
  return url.toString();
}
