/**
 * One HTTP call to an engine, and how its failures become EngineErrors: no redirect followed, a
 * deadline over the whole exchange (answer body included), an answer body read up to a cap, the
 * engine's own error text kept (shortened, with every secret blanked out) and never the address.
 */
import { EngineError } from './errors.js';

const NAMES = { apertium: 'Apertium', libretranslate: 'LibreTranslate', deepl: 'DeepL' } as const;
/** The largest answer read: far above any caption batch's translation, far below harm. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
const MAX_DETAIL = 200;

export interface EngineCall {
  kind: keyof typeof NAMES;
  fetch: typeof fetch;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Values that must never appear in an error message (the key). */
  secrets: readonly string[];
  /** The engine's own words for an error answer, from its JSON body. */
  detail(body: unknown): string | undefined;
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join('…');
  out = out.replace(/\s+/g, ' ').trim();
  return out.length > MAX_DETAIL ? `${out.slice(0, MAX_DETAIL)}…` : out;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Not retryable: the same request will be refused again (400, 403, 404, 413, 456, other 4xx). */
function statusError(call: EngineCall, status: number, detail: string, retryAfter?: number): EngineError {
  const name = NAMES[call.kind];
  const message = `${name} answered ${status}${detail ? `: ${detail}` : ''}`;
  if (status === 429)
    return new EngineError(message, {
      code: 'engine_rate_limited',
      status,
      retryable: true,
      retryAfterMs: retryAfter,
    });
  if (status >= 500)
    return new EngineError(message, {
      code: 'engine_failed',
      status,
      retryable: true,
      retryAfterMs: retryAfter,
    });
  if (status === 401 || status === 403)
    return new EngineError(message, { code: 'engine_auth', status, retryable: false });
  if (status === 456) return new EngineError(message, { code: 'engine_quota', status, retryable: false });
  return new EngineError(message, { code: 'engine_rejected', status, retryable: false });
}

function failure(call: EngineCall, error: unknown, timedOut: boolean): EngineError {
  const name = NAMES[call.kind];
  if (call.signal?.aborted)
    return new EngineError(`${name} call abandoned`, { code: 'aborted', retryable: true });
  if (timedOut)
    return new EngineError(`${name} did not answer within ${call.timeoutMs} ms`, {
      code: 'engine_timeout',
      retryable: true,
    });
  const cause = (error as { cause?: { code?: unknown } }).cause?.code;
  const why = typeof cause === 'string' ? ` (${cause})` : '';
  return new EngineError(`${name} cannot be reached${why}`, { code: 'engine_unreachable', retryable: true });
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new Error('answer too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Calls the engine and returns its JSON answer, or throws an EngineError. */
export async function callEngine(call: EngineCall, url: string, init: RequestInit): Promise<unknown> {
  const deadline = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([call.signal, deadline]) : deadline;
  let response: Response;
  let text: string;
  try {
    response = await call.fetch(url, { ...init, redirect: 'manual', signal });
    text = await readCapped(response);
  } catch (error) {
    if ((error as Error).message === 'answer too large')
      throw new EngineError(`${NAMES[call.kind]} answered more than ${MAX_ANSWER_BYTES} bytes`, {
        code: 'engine_bad_answer',
        retryable: false,
      });
    throw failure(call, error, deadline.aborted);
  }
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const { status } = response;
  if (status >= 300 && status < 400)
    throw new EngineError(`${NAMES[call.kind]} answered ${status}: redirects are not followed`, {
      code: 'engine_redirect',
      status,
      retryable: false,
    });
  if (status < 200 || status >= 300) {
    const detail = scrub(call.detail(body) ?? (body === undefined ? text : ''), call.secrets);
    throw statusError(call, status, detail, retryAfterMs(response.headers.get('retry-after')));
  }
  if (body === undefined) throw badAnswer(call, 'not JSON');
  return body;
}

/** A 2xx answer that is not what the engine's API documents. */
export function badAnswer(call: Pick<EngineCall, 'kind'>, why: string): EngineError {
  return new EngineError(`${NAMES[call.kind]} answered something unexpected (${why})`, {
    code: 'engine_bad_answer',
    retryable: false,
  });
}
