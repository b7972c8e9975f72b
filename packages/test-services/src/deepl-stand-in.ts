/**
 * A stand-in for DeepL API v2 (developers.deepl.com: "Translate text", "Retrieve languages",
 * "Authentication", "Error handling"), strict about what it documents:
 *
 * - Every request carries `Authorization: DeepL-Auth-Key <key>`; the key in a query or a body
 *   (the retired form) is a violation and refused. Keys of the free plan end in `:fx` and work on
 *   the free host only, other keys on the pro host only: 403 otherwise, and for a wrong key.
 * - `GET /v2/languages?type=source|target` -> `[{language, name, supports_formality}]`.
 * - `POST /v2/translate`, JSON (or form) body, no query parameters: `text` an array of 1 to 50
 *   strings, `target_lang` one it lists (case-insensitive), optional `source_lang` (a language
 *   without region), `context` (a string, not translated), and the other documented options;
 *   anything else is a violation. The body is at most 128 KiB (413). Answer
 *   `{"translations": [{"detected_source_language", "text"}]}`, one per text, in order.
 * - Errors are `{"message": "..."}`: 400, 403, 413, 429 (retry with backoff), 456 (quota exceeded),
 *   5xx; scripted faults answer the same shape.
 */
import {
  type EngineAnswer,
  type EngineStandIn,
  jsonObject,
  standInTranslation,
  startEngineStandIn,
} from './engine-stand-in-core.js';

export const DEEPL_SOURCES = [
  { language: 'DE', name: 'German' },
  { language: 'EN', name: 'English' },
  { language: 'ES', name: 'Spanish' },
  { language: 'FR', name: 'French' },
  { language: 'PT', name: 'Portuguese' },
];
export const DEEPL_TARGETS = [
  { language: 'DE', name: 'German', supports_formality: true },
  { language: 'EN-GB', name: 'English (British)', supports_formality: false },
  { language: 'EN-US', name: 'English (American)', supports_formality: false },
  { language: 'ES', name: 'Spanish', supports_formality: true },
  { language: 'FR', name: 'French', supports_formality: true },
  { language: 'PT-BR', name: 'Portuguese (Brazilian)', supports_formality: true },
  { language: 'PT-PT', name: 'Portuguese (European)', supports_formality: true },
  { language: 'ZH-HANS', name: 'Chinese (simplified)', supports_formality: false },
];

const MAX_TEXTS = 50;
const MAX_BODY_BYTES = 128 * 1024;
const DOCUMENTED = new Set([
  'text',
  'source_lang',
  'target_lang',
  'context',
  'show_billed_characters',
  'split_sentences',
  'preserve_formatting',
  'formality',
  'model_type',
  'glossary_id',
  'style_id',
  'custom_instructions',
  'tag_handling',
  'tag_handling_version',
  'outline_detection',
  'enable_beta_languages',
  'non_splitting_tags',
  'splitting_tags',
  'ignore_tags',
]);

export interface DeepLStandIn extends EngineStandIn {
  readonly key: string;
  /** The `context` of each translate request, in order (undefined where none was sent). */
  readonly contexts: (string | undefined)[];
}

export async function startDeepLStandIn(options: { key: string; free?: boolean }): Promise<DeepLStandIn> {
  const free = options.free ?? options.key.endsWith(':fx');
  const contexts: (string | undefined)[] = [];
  const error = (status: number, message: string): EngineAnswer => ({ status, json: { message } });

  function authorize(headers: import('node:http').IncomingHttpHeaders): EngineAnswer | undefined {
    const header = String(headers.authorization ?? '');
    const match = /^DeepL-Auth-Key (.+)$/.exec(header);
    if (!match) return error(403, 'Authorization failure, check auth_key');
    if (match[1]!.endsWith(':fx') !== free)
      return error(403, `Wrong endpoint. Use https://${free ? 'api.deepl.com' : 'api-free.deepl.com'}`);
    if (match[1] !== options.key) return error(403, 'Authorization failure, check auth_key');
    return undefined;
  }

  function translate(params: Record<string, unknown>, violations: string[]): EngineAnswer {
    for (const name of Object.keys(params))
      if (!DOCUMENTED.has(name)) violations.push(`/v2/translate: undocumented parameter ${name}`);
    const { text, target_lang: target, source_lang: source, context } = params;
    if (!Array.isArray(text) || text.length === 0 || !text.every((item) => typeof item === 'string'))
      return error(400, "Parameter 'text' not specified.");
    if (text.length > MAX_TEXTS) {
      violations.push(`/v2/translate: ${text.length} texts in one request`);
      return error(400, `Too many texts: at most ${MAX_TEXTS} per request.`);
    }
    if (typeof target !== 'string' || !DEEPL_TARGETS.some((item) => item.language === target.toUpperCase()))
      return error(400, "Value for 'target_lang' not supported.");
    if (
      source !== undefined &&
      (typeof source !== 'string' || !DEEPL_SOURCES.some((item) => item.language === source.toUpperCase()))
    )
      return error(400, "Value for 'source_lang' not supported.");
    if (context !== undefined && typeof context !== 'string')
      return error(400, "Parameter 'context' must be a string.");
    contexts.push(context);
    const detected = typeof source === 'string' ? source.toUpperCase() : 'EN';
    return {
      status: 200,
      json: {
        translations: (text as string[]).map((item) => ({
          detected_source_language: detected,
          text: standInTranslation(item),
        })),
      },
    };
  }

  const standIn = await startEngineStandIn({
    errorBody: (status, message) => ({
      message:
        message ??
        (status === 456
          ? 'Quota exceeded'
          : status === 429
            ? 'Too many requests'
            : `scripted failure ${status}`),
    }),
    handle(request, violations) {
      if (request.query.has('auth_key') || /auth_key/.test(request.body)) {
        violations.push(`${request.path}: the key outside the Authorization header`);
        return error(403, 'Authorization via auth_key is no longer supported');
      }
      const refused = authorize(request.headers);
      if (refused) return refused;
      if (request.path === '/v2/languages') {
        if (request.method !== 'GET') return error(405, 'Method Not Allowed');
        const type = request.query.get('type') ?? 'source';
        if (type !== 'source' && type !== 'target') return error(400, "Value for 'type' not supported.");
        return { status: 200, json: type === 'source' ? DEEPL_SOURCES : DEEPL_TARGETS };
      }
      if (request.path !== '/v2/translate') return error(404, 'Not found');
      if (request.method !== 'POST') return error(405, 'Method Not Allowed');
      if ([...request.query.keys()].length > 0) violations.push('/v2/translate: query parameters');
      if (Buffer.byteLength(request.body) > MAX_BODY_BYTES) {
        violations.push(`/v2/translate: a body of ${Buffer.byteLength(request.body)} bytes`);
        return error(413, 'Request Entity Too Large');
      }
      const type = String(request.headers['content-type'] ?? '');
      if (/^application\/json/i.test(type)) {
        const params = jsonObject(request.body);
        if (!params) return error(400, 'Invalid JSON body');
        return translate(params, violations);
      }
      if (/^application\/x-www-form-urlencoded/i.test(type)) {
        const form = new URLSearchParams(request.body);
        const params: Record<string, unknown> = Object.fromEntries(form);
        params.text = form.getAll('text');
        return translate(params, violations);
      }
      violations.push(`/v2/translate: content type ${type || '(none)'}`);
      return error(415, 'Unsupported Media Type');
    },
  });
  return Object.assign(standIn, { key: options.key, contexts });
}
