// One model file over HTTP into `<file>.partial`: a Range request resumes a previous partial (its
// prefix hashed from disk), transient failures (network, 5xx, 429, stall, truncated body) are
// retried with backoff and Retry-After, and the SHA-1 is computed while the bytes stream in.
import { createHash, type Hash } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ModelError } from './catalog.js';
import { ensureSpace, hashInto, sizeOf, writeAll } from './download-files.js';
import type { DownloadEvent, DownloadOptions } from './download-types.js';

const MAX_BACKOFF_MS = 30_000;
const MAX_RETRY_AFTER_MS = 120_000;
const USER_AGENT = 'live-captions-model-download/1';

/** A failure worth another attempt (network, 5xx, 429, stall, truncated body). */
class TransientError extends Error {
  constructor(
    message: string,
    readonly extra: { retryAfterMs?: number; status?: number } = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'TransientError';
  }
}

/** The partial cannot be resumed (server answered 416 or a different range): start from zero. */
class RestartSignal extends Error {}

export interface Fetched {
  sha1: string;
  bytes: number;
}

export interface FetchJob {
  name: string;
  url: string;
  partial: string;
  expected: string;
  options: DownloadOptions;
  emit: (event: DownloadEvent) => void;
}

export async function fetchWithRetries(job: FetchJob): Promise<Fetched> {
  const { name, url, partial, options, emit } = job;
  const retries = options.retries ?? 5;
  const baseDelay = options.retryDelayMs ?? 1000;
  let failures = 0;
  let restarts = 0;
  let highWater = (await sizeOf(partial)) ?? 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetchOnce(job, attempt);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      if (err instanceof RestartSignal) {
        await rm(partial, { force: true });
        highWater = 0;
        if (restarts++ < 2) continue;
        throw new ModelError('MODEL_HTTP', `Downloading ${name} from ${url} failed: ${err.message}`);
      }
      if (!(err instanceof TransientError)) throw err;
      // a retry budget per stretch without progress: long downloads over flaky links still finish
      const size = (await sizeOf(partial)) ?? 0;
      if (size > highWater) {
        highWater = size;
        failures = 0;
      }
      failures++;
      if (failures > retries) {
        const { status } = err.extra;
        throw new ModelError(
          status ? 'MODEL_HTTP' : 'MODEL_NETWORK',
          `Downloading ${name} from ${url} failed after ${failures} attempts: ${err.message}` +
            (size > 0 ? ` (${size} bytes kept in ${partial}; run again to resume)` : ''),
          { cause: err, status },
        );
      }
      const delayMs = err.extra.retryAfterMs ?? Math.min(baseDelay * 2 ** (failures - 1), MAX_BACKOFF_MS);
      emit({ type: 'retry', name, attempt, delayMs, reason: err.message });
      await sleep(delayMs, undefined, options.signal ? { signal: options.signal } : {});
    }
  }
}

async function fetchOnce(job: FetchJob, attempt: number): Promise<Fetched> {
  const { name, url, partial, expected, options, emit } = job;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const stallMs = options.stallTimeoutMs ?? 60_000;
  const offset = (await sizeOf(partial)) ?? 0;
  const stall = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stall.signal]) : stall.signal;
  const timer = setTimeout(() => stall.abort(), stallMs);
  try {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, 'accept-encoding': 'identity' };
    if (offset > 0) headers.range = `bytes=${offset}-`;
    let res: Response;
    try {
      res = await fetchImpl(url, { headers, redirect: 'follow', signal });
    } catch (err) {
      throw transient(err, stall.signal, stallMs);
    }
    timer.refresh();
    // The resumed prefix is hashed from disk, so whatever is there is what gets verified; only
    // once the server agreed to resume (a partial of gigabytes is not hashed for a 5xx).
    const hashPrefix = async () => {
      const prefix = createHash('sha1');
      await hashInto(prefix, partial, options.signal, offset);
      timer.refresh();
      return prefix;
    };

    let start = 0;
    let prefix: Hash | undefined;
    let total = contentLength(res);
    if (res.status === 206 && offset > 0) {
      const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.headers.get('content-range') ?? '');
      if (!range || Number(range[1]) !== offset) {
        await res.body?.cancel();
        throw new RestartSignal(`server sent range ${res.headers.get('content-range')} for bytes=${offset}-`);
      }
      start = offset;
      prefix = await hashPrefix();
      total = range[2] === '*' ? (total === undefined ? undefined : offset + total) : Number(range[2]);
    } else if (res.status === 416 && offset > 0) {
      await res.body?.cancel();
      // the partial may be complete already (stopped between the last byte and the rename)
      const sha1 = (await hashPrefix()).digest('hex');
      if (sha1 === expected) return { sha1, bytes: offset };
      throw new RestartSignal('server refused the resume range (416)');
    } else if (res.status !== 200) {
      await res.body?.cancel();
      const what = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
      if (res.status === 429 || res.status === 408 || res.status >= 500) {
        throw new TransientError(what, { retryAfterMs: retryAfter(res), status: res.status });
      }
      const hint =
        res.status === 404 ? ': no such model file there (check the name and CAPTION_MODEL_BASE_URL)' : '';
      throw new ModelError('MODEL_HTTP', `Downloading ${name} from ${url} failed: ${what}${hint}`, {
        status: res.status,
      });
    }
    if (!res.body) throw new TransientError('empty response body');
    // a 200 to a Range request means the server ignored it: the body is the whole file again

    await ensureSpace(partial, total === undefined ? undefined : total - start);
    emit({ type: 'start', name, url, offset: start, total, attempt });
    const hash = prefix ?? createHash('sha1');
    const file = await open(partial, start > 0 ? 'a' : 'w');
    let received = start;
    try {
      const reader = res.body.getReader();
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          throw transient(err, stall.signal, stallMs);
        }
        if (chunk.done) break;
        timer.refresh();
        hash.update(chunk.value);
        await writeAll(file, chunk.value, partial);
        received += chunk.value.byteLength;
        emit({ type: 'progress', name, received, total });
      }
      if (total !== undefined && received !== total) {
        throw new TransientError(`connection closed at byte ${received} of ${total}`);
      }
      await file.sync();
    } finally {
      await file.close();
    }
    return { sha1: hash.digest('hex'), bytes: received };
  } finally {
    clearTimeout(timer);
  }
}

function transient(err: unknown, stalled: AbortSignal, stallMs: number): TransientError {
  if (stalled.aborted) return new TransientError(`no data for ${stallMs / 1000} s`, {}, { cause: err });
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  const detail = cause?.code ?? cause?.message ?? (err as Error)?.message ?? String(err);
  return new TransientError(`network error (${detail})`, {}, { cause: err });
}

function contentLength(res: Response): number | undefined {
  const value = res.headers.get('content-length');
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

function retryAfter(res: Response): number | undefined {
  const value = res.headers.get('retry-after');
  if (!value) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : undefined;
}
