/**
 * Language codes: BCP-47 on our side, each engine's own on the wire.
 *
 * - Apertium lists ISO 639-3 codes with `_`-separated variants (`eng`, `cat_valencia`,
 *   `cat_iec2017`, `eng_US`). Ours: the language as ISO 639-1 where one exists (`ca`), a region
 *   as a region (`en-US`), a variant as a BCP-47 variant subtag (`ca-valencia`, which the IANA
 *   registry has; `ca-iec2017`, which it does not, but which is well-formed and which
 *   `Intl.DisplayNames` shows as "Catalan (IEC2017)"), anything else as private use (`-x-...`).
 *   Back the same way with `_` (APy itself turns a two-letter language into its three-letter
 *   code, variants included: `ca_valencia` -> `cat_valencia`).
 * - LibreTranslate lists `en`, `es`, `pt-BR`, `zh-Hans`, `zh-Hant` (older servers: `pb`, `zh`,
 *   `zt`, its Argos model codes). It is sent the model codes, which servers old and new accept.
 * - DeepL: upper case, some regional (`ES`, `EN-GB`, `PT-BR`, `ZH-HANS`, `ES-419`).
 */

/** `code` in canonical BCP-47 form (`EN-gb` -> `en-GB`), or undefined when it is not a well-formed tag. */
export function canonicalLanguage(code: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(code);
    return canonical;
  } catch {
    return undefined;
  }
}

/** The primary language subtag, lower case (`pt-BR` -> `pt`). */
export const primaryLanguage = (code: string): string => code.split(/[-_]/)[0]!.toLowerCase();

const REGION = /^([A-Za-z]{2}|\d{3})$/;
const SCRIPT = /^[A-Za-z]{4}$/;
const VARIANT = /^([A-Za-z0-9]{5,8}|\d[A-Za-z0-9]{3})$/;
const PRIVATE = /^[A-Za-z0-9]{1,8}$/;

/** ISO 639-3 (or 639-1) language -> its 639-1 code when CLDR knows one (`spa` -> `es`); else unchanged. */
function shortLanguage(language: string): string {
  const lower = language.toLowerCase();
  const canonical = canonicalLanguage(lower);
  // Macrolanguage aliases that bring a script or region with them (`hbs` -> `sr-Latn`) would not
  // map back: those keep their own code.
  return canonical && /^[a-z]{2}$/.test(canonical) ? canonical : lower;
}

/** An Apertium code (`cat_valencia`, `eng_US`) as BCP-47 (`ca-valencia`, `en-US`). */
export function fromApertium(code: string): string {
  const [language = '', ...parts] = code.split('_');
  let script: string | undefined;
  let region: string | undefined;
  const variants: string[] = [];
  const privateUse: string[] = [];
  for (const part of parts) {
    if (script === undefined && region === undefined && variants.length === 0 && SCRIPT.test(part))
      script = part[0]!.toUpperCase() + part.slice(1).toLowerCase();
    else if (region === undefined && variants.length === 0 && REGION.test(part)) region = part.toUpperCase();
    else if (VARIANT.test(part)) variants.push(part.toLowerCase());
    else if (PRIVATE.test(part)) privateUse.push(part.toLowerCase());
  }
  const tag = [shortLanguage(language), script, region, ...variants].filter(Boolean).join('-');
  return privateUse.length > 0 ? `${tag}-x-${privateUse.join('-')}` : tag;
}

/** BCP-47 as APy takes it in `langpair` (`ca-valencia` -> `ca_valencia`, `en-US` -> `en_US`). */
export function toApertium(code: string): string {
  const subtags = code.split('-');
  const out: string[] = [subtags[0]!.toLowerCase()];
  for (const subtag of subtags.slice(1)) {
    if (subtag.toLowerCase() === 'x') continue;
    if (SCRIPT.test(subtag)) out.push(subtag[0]!.toUpperCase() + subtag.slice(1).toLowerCase());
    else if (REGION.test(subtag)) out.push(subtag.toUpperCase());
    else out.push(subtag.toLowerCase());
  }
  return out.join('_');
}

/** LibreTranslate's Argos model codes for the tags its newer servers list. */
const LIBRE_MODEL: Record<string, string> = { 'pt-br': 'pb', 'zh-hans': 'zh', 'zh-hant': 'zt' };
const LIBRE_TAG: Record<string, string> = { pb: 'pt-BR', zt: 'zh-Hant' };

/** A code LibreTranslate lists (`pb`, `zt`, `pt-BR`, `en`) as BCP-47. */
export function fromLibreTranslate(code: string): string {
  const tag = LIBRE_TAG[code.toLowerCase()] ?? code;
  return canonicalLanguage(tag) ?? tag;
}

/** BCP-47 as LibreTranslate's `source` / `target` (its model code, which old and new servers accept). */
export function toLibreTranslate(code: string): string {
  const lower = code.toLowerCase();
  return LIBRE_MODEL[lower] ?? lower;
}

/** A DeepL code (`EN-GB`, `ZH-HANS`) as BCP-47 (`en-GB`, `zh-Hans`). */
export function fromDeepL(code: string): string {
  return canonicalLanguage(code) ?? code.toLowerCase();
}

/** BCP-47 as DeepL's `target_lang` (`pt-BR` -> `PT-BR`). */
export const toDeepLTarget = (code: string): string => code.toUpperCase();

/** BCP-47 as DeepL's `source_lang`: the language alone (`en-US` -> `EN`). */
export const toDeepLSource = (code: string): string => primaryLanguage(code).toUpperCase();

const englishNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** A language's English name from CLDR (`ca-valencia` -> "Catalan (Valencian)"), or the code. */
export function englishName(code: string): string {
  try {
    return englishNames.of(code) ?? code;
  } catch {
    return code;
  }
}
