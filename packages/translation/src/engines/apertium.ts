/**
 * Apertium APy (apertium/apertium-apy): `GET /listPairs` lists the installed pairs in ISO 639-3
 * codes; `POST /translate` takes a form-encoded body (`langpair=eng|spa`, `q`) and translates one
 * text per request (a repeated `q` keeps only the last), so a batch is one request per text, in
 * order. `markUnknown=no`: unknown words come back without APy's `*` mark (names pass through
 * unchanged); `format=txt`: captions are plain text (APy's default reads HTML, so `<b>` in a
 * caption would be taken as markup).
 */
import { badAnswer, callEngine, type EngineCall } from '../engine-http.js';
import { EngineError } from '../errors.js';
import { canonicalLanguage, englishName, fromApertium, primaryLanguage, toApertium } from '../languages.js';
import type { LanguageOption, TranslationEngine, TranslationRequest } from '../types.js';

type Call = Omit<EngineCall, 'kind' | 'detail' | 'signal' | 'secrets'>;

const detail = (body: unknown): string | undefined => {
  const explanation = (body as { explanation?: unknown } | undefined)?.explanation;
  return typeof explanation === 'string' ? explanation : undefined;
};

function pairsOf(body: unknown): { source: string; target: string }[] | undefined {
  const data = (body as { responseData?: unknown } | undefined)?.responseData;
  if (!Array.isArray(data)) return undefined;
  const pairs: { source: string; target: string }[] = [];
  for (const item of data) {
    const { sourceLanguage, targetLanguage } = (item ?? {}) as Record<string, unknown>;
    if (typeof sourceLanguage !== 'string' || typeof targetLanguage !== 'string') return undefined;
    pairs.push({ source: fromApertium(sourceLanguage), target: fromApertium(targetLanguage) });
  }
  return pairs;
}

/** Targets for `source` among `pairs`: its own pairs, or its language's when it has none (`en-GB` -> `en`). */
export function targetsFor(source: string, pairs: { source: string; target: string }[]): LanguageOption[] {
  const wanted = canonicalLanguage(source) ?? source;
  let matching = pairs.filter((pair) => pair.source === wanted);
  if (matching.length === 0) matching = pairs.filter((pair) => pair.source === primaryLanguage(wanted));
  const codes = [
    ...new Set(
      matching.map((pair) => pair.target).filter((code) => primaryLanguage(code) !== primaryLanguage(wanted)),
    ),
  ].sort();
  return codes.map((code) => ({ code, name: englishName(code) }));
}

export function apertiumEngine(base: string, call: Call): TranslationEngine {
  const engineCall = (signal?: AbortSignal): EngineCall => ({
    ...call,
    kind: 'apertium',
    detail,
    signal,
    secrets: [],
  });

  async function one(langpair: string, text: string, signal?: AbortSignal): Promise<string> {
    if (text.trim() === '') return '';
    const form = new URLSearchParams({ langpair, q: text, markUnknown: 'no', format: 'txt' });
    let body: unknown;
    try {
      body = await callEngine(engineCall(signal), `${base}/translate`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: form.toString(),
      });
    } catch (error) {
      // APy: 400 "That pair is not installed" / "That pair is invalid, use e.g. eng|spa".
      if (error instanceof EngineError && error.status === 400 && /pair/i.test(error.message))
        throw new EngineError(error.message, { code: 'unsupported_pair', status: 400, retryable: false });
      throw error;
    }
    const translated = (body as { responseData?: { translatedText?: unknown } }).responseData?.translatedText;
    if (typeof translated !== 'string')
      throw badAnswer({ kind: 'apertium' }, 'no responseData.translatedText');
    return translated.trim();
  }

  return {
    kind: 'apertium',
    async targets(source, signal) {
      const body = await callEngine(engineCall(signal), `${base}/listPairs`, { method: 'GET' });
      const pairs = pairsOf(body);
      if (!pairs) throw badAnswer({ kind: 'apertium' }, 'no responseData list of pairs');
      return targetsFor(source, pairs);
    },
    async translate(request: TranslationRequest, signal) {
      const langpair = `${toApertium(request.source)}|${toApertium(request.target)}`;
      const out: string[] = [];
      for (const text of request.texts) out.push(await one(langpair, text, signal));
      return out;
    },
  };
}
