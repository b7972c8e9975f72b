/**
 * DeepL API v2 (developers.deepl.com): `POST /v2/translate` with a JSON body
 * `{text: [...], target_lang, source_lang, context}` and the header
 * `Authorization: DeepL-Auth-Key <key>` (never a query parameter); at most 50 texts and 128 KiB
 * per request, so a longer batch becomes several requests, in order. `context` informs the
 * translation of every text and is itself neither translated nor billed. `GET
 * /v2/languages?type=target|source` lists the languages. 456: the quota is used up (no retry
 * until it resets); 429 and 5xx: retry with backoff.
 */
import { badAnswer, callEngine, type EngineCall } from '../engine-http.js';
import { canonicalLanguage, fromDeepL, primaryLanguage, toDeepLSource, toDeepLTarget } from '../languages.js';
import type { LanguageOption, TranslationEngine } from '../types.js';

type Call = Omit<EngineCall, 'kind' | 'detail' | 'signal' | 'secrets'>;

export const DEEPL_MAX_TEXTS = 50;
export const DEEPL_MAX_BODY_BYTES = 128 * 1024;

const detail = (body: unknown): string | undefined => {
  const { message, detail: more } = (body ?? {}) as { message?: unknown; detail?: unknown };
  if (typeof message !== 'string') return undefined;
  return typeof more === 'string' && more !== '' ? `${message} (${more})` : message;
};

function languagesOf(body: unknown): LanguageOption[] | undefined {
  if (!Array.isArray(body)) return undefined;
  const out: LanguageOption[] = [];
  for (const item of body) {
    const { language, name } = (item ?? {}) as Record<string, unknown>;
    if (typeof language !== 'string' || typeof name !== 'string') return undefined;
    out.push({ code: fromDeepL(language), name });
  }
  return out;
}

/** `texts` in requests of at most 50 texts and 128 KiB each (a single larger text goes alone and DeepL refuses it). */
export function deeplBatches(texts: string[], fixed: Record<string, unknown>): string[][] {
  const overhead = Buffer.byteLength(JSON.stringify({ ...fixed, text: [] }));
  const batches: string[][] = [];
  let batch: string[] = [];
  let size = overhead;
  for (const text of texts) {
    const cost = Buffer.byteLength(JSON.stringify(text)) + 1;
    if (batch.length > 0 && (batch.length >= DEEPL_MAX_TEXTS || size + cost > DEEPL_MAX_BODY_BYTES)) {
      batches.push(batch);
      batch = [];
      size = overhead;
    }
    batch.push(text);
    size += cost;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

export function deeplEngine(base: string, key: string, call: Call): TranslationEngine {
  const engineCall = (signal?: AbortSignal): EngineCall => ({
    ...call,
    kind: 'deepl',
    detail,
    signal,
    secrets: [key],
  });
  const headers = { Authorization: `DeepL-Auth-Key ${key}` };

  async function list(type: 'source' | 'target', signal?: AbortSignal): Promise<LanguageOption[]> {
    const body = await callEngine(engineCall(signal), `${base}/v2/languages?type=${type}`, {
      method: 'GET',
      headers,
    });
    const languages = languagesOf(body);
    if (!languages) throw badAnswer({ kind: 'deepl' }, 'not a list of languages');
    return languages;
  }

  return {
    kind: 'deepl',
    async targets(source, signal) {
      const wanted = primaryLanguage(canonicalLanguage(source) ?? source);
      const sources = await list('source', signal);
      if (!sources.some((language) => primaryLanguage(language.code) === wanted)) return [];
      const targets = await list('target', signal);
      return targets
        .filter((language) => primaryLanguage(language.code) !== wanted)
        .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    },
    async translate(request, signal) {
      const indexes = request.texts.flatMap((text, index) => (text.trim() === '' ? [] : [index]));
      const out = request.texts.map(() => '');
      const fixed: Record<string, unknown> = {
        source_lang: toDeepLSource(request.source),
        target_lang: toDeepLTarget(request.target),
      };
      if (request.context && request.context.trim() !== '') fixed.context = request.context;
      const translated: string[] = [];
      for (const batch of deeplBatches(
        indexes.map((index) => request.texts[index]!),
        fixed,
      )) {
        const answer = await callEngine(engineCall(signal), `${base}/v2/translate`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify({ text: batch, ...fixed }),
        });
        const translations = (answer as { translations?: unknown }).translations;
        if (!Array.isArray(translations) || translations.length !== batch.length)
          throw badAnswer({ kind: 'deepl' }, `translations is not a list of ${batch.length}`);
        for (const item of translations) {
          const text = (item as { text?: unknown } | null)?.text;
          if (typeof text !== 'string') throw badAnswer({ kind: 'deepl' }, 'a translation without text');
          translated.push(text.trim());
        }
      }
      indexes.forEach((index, at) => {
        out[index] = translated[at]!;
      });
      return out;
    },
  };
}
