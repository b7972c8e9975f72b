/**
 * A stand-in for a LibreTranslate server (LibreTranslate/LibreTranslate `app.py`, `language.py`),
 * strict about what its API documents:
 *
 * - `GET /languages` -> `[{code, name, targets}]`, codes as a current server lists them (`pt-BR`,
 *   `zh-Hans`); `/translate` also takes its model codes (`pb`, `zh`, `zt`), as every server does.
 * - `POST /translate`, JSON (an object, else 400 "Invalid JSON format") or form-encoded: `q` (a
 *   string, or an array of strings: the answer's `translatedText` is then an array in order),
 *   `source` (or `auto`), `target`, optional `format` (`text` | `html`), `alternatives`,
 *   `api_key`. Missing parameters: 400 "Invalid request: missing q parameter"; a language it lacks:
 *   400 "xx is not supported"; a batch over `--batch-limit`: 400.
 * - Keys (`--api-keys`): a wrong `api_key` is 403 "Invalid API key"; a missing one is refused only
 *   when the server requires keys (`--require-api-key-origin` and the like): 400 "Please contact
 *   the server operator to get an API key".
 * - Errors are `{"error": "..."}`; scripted faults answer the same shape.
 */
import {
  type EngineAnswer,
  type EngineStandIn,
  jsonObject,
  standInTranslation,
  startEngineStandIn,
} from './engine-stand-in-core.js';

export interface LibreLanguage {
  code: string;
  name: string;
  targets: string[];
}

export const LIBRE_LANGUAGES: LibreLanguage[] = [
  { code: 'en', name: 'English', targets: ['ca', 'es', 'fr', 'pt-BR', 'zh-Hans', 'zh-Hant'] },
  { code: 'es', name: 'Spanish', targets: ['en', 'fr'] },
  { code: 'ca', name: 'Catalan', targets: ['en'] },
  { code: 'fr', name: 'French', targets: ['en', 'es'] },
  { code: 'pt-BR', name: 'Portuguese (Brazil)', targets: ['en'] },
  { code: 'zh-Hans', name: 'Chinese (Simplified)', targets: ['en'] },
  { code: 'zh-Hant', name: 'Chinese (Traditional)', targets: ['en'] },
];

/** language.py's iso2model: what the server takes in `source` / `target`. */
const MODEL_ALIASES: Record<string, string> = { 'pt-br': 'pb', 'zh-hans': 'zh', 'zh-hant': 'zt' };
const toModel = (code: string) => MODEL_ALIASES[code.toLowerCase()] ?? code.toLowerCase();

const DOCUMENTED = new Set(['q', 'source', 'target', 'format', 'alternatives', 'api_key', 'secret']);

export interface LibreTranslateStandIn extends EngineStandIn {
  /** The `api_key` it accepts, when it has keys. */
  readonly apiKey: string | undefined;
}

export async function startLibreTranslateStandIn(
  options: { apiKey?: string; requireKey?: boolean; batchLimit?: number; languages?: LibreLanguage[] } = {},
): Promise<LibreTranslateStandIn> {
  const languages = options.languages ?? LIBRE_LANGUAGES;
  const byModel = new Map(languages.map((language) => [toModel(language.code), language]));
  const error = (status: number, message: string): EngineAnswer => ({ status, json: { error: message } });

  function translate(params: Record<string, unknown>, violations: string[]): EngineAnswer {
    for (const name of Object.keys(params))
      if (!DOCUMENTED.has(name)) violations.push(`/translate: undocumented parameter ${name}`);
    const key = params.api_key;
    if (options.apiKey !== undefined) {
      if (key !== undefined && key !== options.apiKey) return error(403, 'Invalid API key');
      if (key === undefined && options.requireKey)
        return error(400, 'Please contact the server operator to get an API key');
    }
    const { q, source, target, format } = params;
    if (!q || (Array.isArray(q) && q.length === 0)) return error(400, 'Invalid request: missing q parameter');
    if (!source) return error(400, 'Invalid request: missing source parameter');
    if (!target) return error(400, 'Invalid request: missing target parameter');
    const batch = Array.isArray(q);
    const texts: unknown[] = batch ? q : [q];
    if (!texts.every((text) => typeof text === 'string')) {
      violations.push('/translate: q holds something other than strings');
      return error(400, 'Invalid request: q must be text');
    }
    if (batch && options.batchLimit !== undefined && texts.length > options.batchLimit)
      return error(
        400,
        `Invalid request: request (${texts.length}) exceeds text limit (${options.batchLimit})`,
      );
    if (format !== undefined && format !== 'text' && format !== 'html')
      return error(400, `${String(format)} format is not supported`);
    const from = source === 'auto' ? byModel.get('en') : byModel.get(toModel(String(source)));
    if (!from) return error(400, `${String(source)} is not supported`);
    const to = byModel.get(toModel(String(target)));
    if (!to) return error(400, `${String(target)} is not supported`);
    if (!from.targets.some((code) => toModel(code) === toModel(to.code)))
      return error(
        400,
        `${to.name} (${to.code}) is not available as a target language from ${from.name} (${from.code})`,
      );
    const translated = (texts as string[]).map(standInTranslation);
    return { status: 200, json: { translatedText: batch ? translated : translated[0] } };
  }

  const standIn = await startEngineStandIn({
    errorBody: (status, message) => ({
      error: message ?? (status === 429 ? 'Slowdown: 30 per 1 minute' : `scripted failure ${status}`),
    }),
    handle(request, violations) {
      if (request.path === '/languages') {
        if (request.method !== 'GET') return error(405, 'Method Not Allowed');
        return { status: 200, json: languages };
      }
      if (request.path !== '/translate') return error(404, 'Not Found');
      if (request.method !== 'POST') return error(405, 'Method Not Allowed');
      const type = String(request.headers['content-type'] ?? '');
      if (/^application\/json/i.test(type)) {
        const params = jsonObject(request.body);
        if (!params) return error(400, 'Invalid JSON format');
        return translate(params, violations);
      }
      if (/^application\/x-www-form-urlencoded/i.test(type))
        return translate(Object.fromEntries(new URLSearchParams(request.body)), violations);
      violations.push(`/translate: content type ${type || '(none)'}`);
      return error(400, 'Invalid request: missing q parameter');
    },
  });
  return Object.assign(standIn, { apiKey: options.apiKey });
}
