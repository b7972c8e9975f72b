/**
 * Validation of the `/v1/audio/*` form fields, in the contract's order (speech-contract.md,
 * "/v1 order"): unknown, duplicate (in multipart), file, model, language on translations,
 * response_format, timestamp_granularities[], stream, include[], temperature, prompt; the
 * language code is checked after, with the engine's abilities.
 */
import { HttpError, Messages, unknownField, unknownModel } from './errors.js';
import { promptTail } from './request.js';
import { GRANULARITIES, type Granularity, RESPONSE_FORMATS, type ResponseFormat } from './transcript.js';

/** The hosted-model alias that selects the loaded local model. */
export const COMPAT_ALIAS = 'whisper-1';

export type Task = 'transcriptions' | 'translations';

const COMMON = ['file', 'model', 'response_format', 'temperature', 'prompt', 'stream'];
/** Translations take `language` only to refuse it with its own message (they detect it). */
const FIELDS: Record<Task, ReadonlySet<string>> = {
  transcriptions: new Set([...COMMON, 'language']),
  translations: new Set([...COMMON, 'language']),
};
/** Fields sent as `name[]` (the SDKs' encoding of arrays), read as lists from either route. */
export const LIST_FIELDS: ReadonlySet<string> = new Set(['timestamp_granularities', 'include']);
/** OpenAI has them on transcriptions only. */
const TASK_LISTS: Record<Task, ReadonlySet<string>> = {
  transcriptions: LIST_FIELDS,
  translations: new Set(),
};

export interface OpenAiOptions {
  responseFormat: ResponseFormat;
  granularities: Granularity[];
  stream: boolean;
  logprobs: boolean;
  /** 0-1: the start temperature of whisper.cpp's fallback. */
  temperature: number;
  prompt: string;
  /** `auto` unless given (transcriptions only). */
  language: string;
}

const DECIMAL = /^\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function flag(value: string | undefined, param: string): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new HttpError(400, Messages.booleanField(param), { param });
}

export function parseOpenAiFields(
  task: Task,
  fields: Record<string, string>,
  lists: Record<string, string[]>,
  hasFile: boolean,
  model: string,
): OpenAiOptions {
  for (const name of Object.keys(fields)) {
    if (!FIELDS[task].has(name)) throw new HttpError(400, unknownField(name), { param: name });
  }
  for (const name of Object.keys(lists)) {
    if (!TASK_LISTS[task].has(name)) throw new HttpError(400, unknownField(`${name}[]`), { param: name });
  }
  if (!hasFile) throw new HttpError(400, Messages.fileMissing, { param: 'file' });
  if (fields.model === undefined || fields.model === '')
    throw new HttpError(400, Messages.modelMissing, { param: 'model' });
  if (fields.model !== model && fields.model !== COMPAT_ALIAS) {
    throw new HttpError(400, unknownModel(model), { param: 'model', code: 'model_not_found' });
  }
  if (task === 'translations' && fields.language !== undefined) {
    throw new HttpError(400, Messages.languageOnTranslation, { param: 'language' });
  }
  const responseFormat = (fields.response_format ?? 'json') as ResponseFormat;
  if (!RESPONSE_FORMATS.includes(responseFormat)) {
    throw new HttpError(400, Messages.responseFormat, { param: 'response_format' });
  }

  const granularities = lists.timestamp_granularities ?? [];
  if (granularities.some((value) => !GRANULARITIES.includes(value as Granularity))) {
    throw new HttpError(400, Messages.granularity, { param: 'timestamp_granularities' });
  }
  if (granularities.length > 0 && responseFormat !== 'verbose_json') {
    throw new HttpError(400, Messages.granularityFormat, { param: 'timestamp_granularities' });
  }

  const stream = flag(fields.stream, 'stream');
  if (stream && (task === 'translations' || (responseFormat !== 'json' && responseFormat !== 'text'))) {
    throw new HttpError(400, Messages.streaming, { param: 'stream' });
  }
  const include = lists.include ?? [];
  if (include.some((value) => value !== 'logprobs')) {
    throw new HttpError(400, Messages.include, { param: 'include' });
  }
  const logprobs = include.length > 0;
  // OpenAI returns logprobs in `json` only; a stream carries them in its events.
  if (logprobs && responseFormat !== 'json' && !stream) {
    throw new HttpError(400, Messages.include, { param: 'include' });
  }

  let temperature = 0;
  if (fields.temperature !== undefined) {
    temperature = DECIMAL.test(fields.temperature.trim()) ? Number(fields.temperature) : Number.NaN;
    if (!(temperature >= 0 && temperature <= 1)) {
      throw new HttpError(400, Messages.temperature, { param: 'temperature' });
    }
  }
  const prompt = promptTail(fields.prompt ?? '');
  return {
    responseFormat,
    granularities: [...new Set(granularities as Granularity[])],
    stream,
    logprobs,
    temperature,
    prompt,
    language: fields.language ?? 'auto',
  };
}
