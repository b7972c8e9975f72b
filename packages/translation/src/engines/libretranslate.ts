/**
 * LibreTranslate (LibreTranslate/LibreTranslate `app.py`): `GET /languages` ->
 * `[{code, name, targets}]`; `POST /translate` with a JSON body whose `q` is an array translates
 * the batch in one request (`translatedText` an array in the same order); `api_key` in the body
 * when the server wants keys. Errors are `{"error": "..."}`: 400 bad parameters or a language it
 * lacks, 403 a banned client or a wrong key, 429 its rate limit, 500 a failed translation.
 */
import { badAnswer, callEngine, type EngineCall } from '../engine-http.js';
import { EngineError } from '../errors.js';
import {
  canonicalLanguage,
  englishName,
  fromLibreTranslate,
  primaryLanguage,
  toLibreTranslate,
} from '../languages.js';
import type { LanguageOption, TranslationEngine } from '../types.js';

type Call = Omit<EngineCall, 'kind' | 'detail' | 'signal' | 'secrets'>;

const detail = (body: unknown): string | undefined => {
  const error = (body as { error?: unknown } | undefined)?.error;
  return typeof error === 'string' ? error : undefined;
};

interface Listed {
  code: string;
  name: string;
  targets: string[];
}

function listOf(body: unknown): Listed[] | undefined {
  if (!Array.isArray(body)) return undefined;
  const out: Listed[] = [];
  for (const item of body) {
    const { code, name, targets } = (item ?? {}) as Record<string, unknown>;
    if (typeof code !== 'string' || !Array.isArray(targets) || !targets.every((t) => typeof t === 'string'))
      return undefined;
    out.push({
      code: fromLibreTranslate(code),
      name: typeof name === 'string' && name.trim() !== '' ? name : englishName(fromLibreTranslate(code)),
      targets: (targets as string[]).map(fromLibreTranslate),
    });
  }
  return out;
}

export function libreTranslateEngine(base: string, key: string | undefined, call: Call): TranslationEngine {
  const engineCall = (signal?: AbortSignal): EngineCall => ({
    ...call,
    kind: 'libretranslate',
    detail,
    signal,
    secrets: key ? [key] : [],
  });
  return {
    kind: 'libretranslate',
    async targets(source, signal): Promise<LanguageOption[]> {
      const body = await callEngine(engineCall(signal), `${base}/languages`, {
        method: 'GET',
        // Names come in the UI language the server picks from this header.
        headers: { 'Accept-Language': 'en' },
      });
      const listed = listOf(body);
      if (!listed) throw badAnswer({ kind: 'libretranslate' }, 'not a list of languages');
      const wanted = canonicalLanguage(source) ?? source;
      const entry =
        listed.find((language) => language.code === wanted) ??
        listed.find((language) => language.code === primaryLanguage(wanted));
      if (!entry) return [];
      const names = new Map(listed.map((language) => [language.code, language.name]));
      return [...new Set(entry.targets)]
        .filter((code) => primaryLanguage(code) !== primaryLanguage(wanted))
        .sort()
        .map((code) => ({ code, name: names.get(code) ?? englishName(code) }));
    },
    async translate(request, signal) {
      const indexes = request.texts.flatMap((text, index) => (text.trim() === '' ? [] : [index]));
      const out = request.texts.map(() => '');
      if (indexes.length === 0) return out;
      const body: Record<string, unknown> = {
        q: indexes.map((index) => request.texts[index]),
        source: toLibreTranslate(request.source),
        target: toLibreTranslate(request.target),
        format: 'text',
      };
      if (key) body.api_key = key;
      let answer: unknown;
      try {
        answer = await callEngine(engineCall(signal), `${base}/translate`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      } catch (error) {
        // "xx is not supported", "... is not available as a target language from ...".
        if (
          error instanceof EngineError &&
          error.status === 400 &&
          /not (supported|available)/i.test(error.message)
        )
          throw new EngineError(error.message, { code: 'unsupported_pair', status: 400, retryable: false });
        throw error;
      }
      const translated = (answer as { translatedText?: unknown }).translatedText;
      if (
        !Array.isArray(translated) ||
        translated.length !== indexes.length ||
        !translated.every((text) => typeof text === 'string')
      )
        throw badAnswer(
          { kind: 'libretranslate' },
          `translatedText is not an array of ${indexes.length} texts`,
        );
      indexes.forEach((index, at) => {
        out[index] = (translated[at] as string).trim();
      });
      return out;
    },
  };
}
