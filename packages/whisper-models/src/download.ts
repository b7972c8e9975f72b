// Downloads an official ggml model: streams `<baseUrl>/resolve/main/ggml-<name>.bin` into
// `<file>.partial` (resuming a previous partial with a Range request), retries transient failures
// with backoff, verifies the SHA-1, fsyncs and renames into place. One download per file at a time
// (a lock file next to it, kept fresh by a heartbeat), so workers sharing a model volume cooperate.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, readFile, rename, rm, stat, statfs, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DEFAULT_MODEL_BASE_URL,
  ModelError,
  type ModelSpec,
  modelFile,
  modelNames,
  modelSpec,
  type ResolvedModel,
  resolveModel,
} from './catalog.js';

export type DownloadEvent =
  /** The lock is held by another download of the same file; waiting for it. */
  | { type: 'wait'; name: string; holder: string }
  /** Hashing a file that is already in place. */
  | { type: 'check'; name: string; path: string }
  /** The file was already in place and verified: nothing to download. */
  | { type: 'present'; name: string; path: string; bytes: number }
  /** A response is streaming; `offset` > 0 when a partial download is resumed. */
  | { type: 'start'; name: string; url: string; offset: number; total: number | undefined; attempt: number }
  /** Bytes on disk so far (including a resumed prefix). */
  | { type: 'progress'; name: string; received: number; total: number | undefined }
  /** A transient failure; the next attempt starts after `delayMs`. */
  | { type: 'retry'; name: string; attempt: number; delayMs: number; reason: string }
  /** The file is in place and its SHA-1 matched. */
  | { type: 'done'; name: string; path: string; bytes: number; sha1: string };

export interface DownloadOptions {
  /** Folder of the models; the file is `<modelDir>/ggml-<name>.bin`. Created when missing. */
  modelDir: string;
  /** @defaultValue CAPTION_MODEL_BASE_URL, else the model's repository (https://huggingface.co/ggerganov/whisper.cpp) */
  baseUrl?: string;
  onProgress?: (event: DownloadEvent) => void;
  /** Failed attempts in a row (without new bytes) before giving up. @defaultValue 5 */
  retries?: number;
  /** First backoff delay, doubled per failure up to 30 s; Retry-After wins when sent. @defaultValue 1000 */
  retryDelayMs?: number;
  /** An attempt that receives nothing for this long is dropped and retried. @defaultValue 60000 */
  stallTimeoutMs?: number;
  /** A lock file older than this (no heartbeat) belongs to a dead download. @defaultValue 60000 */
  lockStaleMs?: number;
  /** Cancels the download; the partial file is kept for the next run to resume. */
  signal?: AbortSignal;
  /** @defaultValue globalThis.fetch (Node's undici) */
  fetch?: typeof fetch;
  /** SHA-1 to verify against instead of the catalog's; also allows names outside the catalog (tests, mirrors). */
  expectedSha1?: string;
  /** Read for CAPTION_MODEL_BASE_URL. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_BACKOFF_MS = 30_000;
const MAX_RETRY_AFTER_MS = 120_000;
const USER_AGENT = 'live-captions-model-download/1';

/**
 * Makes sure `<modelDir>/ggml-<name>.bin` is the verified official model and returns its path.
 * A file already in place that verifies is left alone (no request is made).
 */
export async function downloadModel(name: string, options: DownloadOptions): Promise<string> {
  const spec = modelSpec(name);
  const expected = (options.expectedSha1 ?? spec?.sha1)?.toLowerCase();
  if (!expected || !SAFE_NAME.test(name)) {
    throw new ModelError('MODEL_UNKNOWN', `Unknown model "${name}": use one of ${modelNames()}`);
  }
  const path = modelFile(name, options.modelDir);
  const emit = options.onProgress ?? (() => {});
  const signal = options.signal;
  await mkdir(dirname(path), { recursive: true });

  const lock = await acquireLock(`${path}.lock`, {
    staleMs: options.lockStaleMs ?? 60_000,
    signal,
    onWait: (holder) => emit({ type: 'wait', name, holder }),
  });
  try {
    const existing = await sizeOf(path);
    if (existing !== undefined) {
      emit({ type: 'check', name, path });
      if ((await sha1File(path, { signal })) === expected) {
        emit({ type: 'present', name, path, bytes: existing });
        return path;
      }
      // a corrupt or outdated file stays until a verified download replaces it
    }
    const url = `${baseUrlFor(spec, options)}/resolve/main/ggml-${name}.bin`;
    const partial = `${path}.partial`;
    const { sha1, bytes } = await fetchWithRetries({ name, url, partial, expected, options, emit });
    if (sha1 !== expected) {
      await rm(partial, { force: true });
      throw new ModelError(
        'MODEL_CHECKSUM',
        `ggml-${name}.bin from ${url} failed verification: expected SHA-1 ${expected}, got ${sha1} ` +
          `(${bytes} bytes). The partial download was deleted; run again to download it from scratch.`,
      );
    }
    await rename(partial, path);
    await syncDir(dirname(path));
    emit({ type: 'done', name, path, bytes, sha1 });
    return path;
  } catch (err) {
    if (signal?.aborted && !(err instanceof ModelError && err.code === 'MODEL_CHECKSUM')) {
      throw new ModelError('MODEL_ABORTED', `Download of ${name} was cancelled; run again to resume`, {
        cause: err,
      });
    }
    throw err;
  } finally {
    await lock.release();
  }
}

export interface EnsureModelOptions extends DownloadOptions {
  /** Never download: a catalog model must already be in `modelDir` (CAPTION_OFFLINE=1). */
  offline?: boolean;
  /** Base of relative file paths. @defaultValue process.cwd() */
  cwd?: string;
}

/**
 * What the worker calls on start: resolves CAPTION_MODEL (name or path), downloads a catalog model
 * unless offline, and checks that the file exists. Returns the resolved model with its final path.
 */
export async function ensureModel(nameOrPath: string, options: EnsureModelOptions): Promise<ResolvedModel> {
  const model = resolveModel(nameOrPath, options.modelDir, options.cwd ? { cwd: options.cwd } : {});
  if (model.source === 'catalog' && !options.offline) {
    await downloadModel(model.name, options);
    return model;
  }
  const size = await sizeOf(model.path);
  if (size === undefined) {
    throw new ModelError(
      'MODEL_MISSING',
      model.source === 'file'
        ? `Model file ${model.path} does not exist`
        : `Model ${model.name} is not downloaded (${model.path}) and downloads are off (CAPTION_OFFLINE=1): ` +
            `run \`pnpm model ${model.name}\` first`,
    );
  }
  return model;
}

/** SHA-1 (lower-case hex) of a file, streamed. */
export async function sha1File(path: string, { signal }: { signal?: AbortSignal } = {}): Promise<string> {
  const hash = createHash('sha1');
  await hashInto(hash, path, signal);
  return hash.digest('hex');
}

function baseUrlFor(spec: ModelSpec | undefined, options: DownloadOptions): string {
  const env = options.env ?? process.env;
  const base =
    options.baseUrl ?? (env.CAPTION_MODEL_BASE_URL || undefined) ?? spec?.baseUrl ?? DEFAULT_MODEL_BASE_URL;
  return base.replace(/\/+$/, '');
}

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

interface Fetched {
  sha1: string;
  bytes: number;
}

interface Job {
  name: string;
  url: string;
  partial: string;
  expected: string;
  options: DownloadOptions;
  emit: (event: DownloadEvent) => void;
}

async function fetchWithRetries(job: Job): Promise<Fetched> {
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

async function fetchOnce(job: Job, attempt: number): Promise<Fetched> {
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

async function writeAll(file: FileHandle, data: Uint8Array, path: string): Promise<void> {
  try {
    let written = 0;
    while (written < data.byteLength) {
      const { bytesWritten } = await file.write(data, written, data.byteLength - written);
      written += bytesWritten;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      throw new ModelError(
        'MODEL_DISK',
        `No space left on the device for ${path}; free some and run again to resume`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
}

async function ensureSpace(partial: string, needed: number | undefined): Promise<void> {
  if (needed === undefined) return;
  const fs = await statfs(dirname(partial)).catch(() => undefined);
  if (!fs) return;
  const free = fs.bavail * fs.bsize;
  if (needed > free) {
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
    throw new ModelError(
      'MODEL_DISK',
      `Not enough disk space in ${dirname(partial)}: the model needs ${mib(needed)} more, ${mib(free)} free`,
    );
  }
}

async function hashInto(
  hash: Hash,
  path: string,
  signal: AbortSignal | undefined,
  length?: number,
): Promise<void> {
  const range = length === undefined ? {} : { start: 0, end: length - 1 };
  const stream = createReadStream(path, { highWaterMark: 1 << 20, ...range, ...(signal ? { signal } : {}) });
  for await (const chunk of stream) hash.update(chunk as Buffer);
}

async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // some filesystems refuse fsync on a directory; the rename itself is still atomic
  } finally {
    await handle.close();
  }
}

interface Lock {
  release(): Promise<void>;
}

interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

/** Exclusive-create lock file with an mtime heartbeat; a lock without heartbeat is taken over. */
async function acquireLock(
  lockPath: string,
  opts: { staleMs: number; signal: AbortSignal | undefined; onWait: (holder: string) => void },
): Promise<Lock> {
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  let announced = false;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(JSON.stringify(me));
      await handle.close();
      const heartbeat = setInterval(() => {
        const now = new Date();
        utimes(lockPath, now, now).catch(() => {});
      }, opts.staleMs / 4);
      heartbeat.unref();
      return {
        async release() {
          clearInterval(heartbeat);
          await rm(lockPath, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const seen = await stat(lockPath).catch(() => undefined);
    if (!seen) continue;
    const owner = await readOwner(lockPath);
    const dead =
      Date.now() - seen.mtimeMs > opts.staleMs ||
      (owner !== undefined && owner.host === me.host && owner.pid !== me.pid && !isAlive(owner.pid));
    if (dead) {
      const again = await stat(lockPath).catch(() => undefined);
      if (again && again.mtimeMs === seen.mtimeMs && again.ino === seen.ino)
        await rm(lockPath, { force: true });
      continue;
    }
    if (!announced) {
      announced = true;
      opts.onWait(owner ? `pid ${owner.pid} on ${owner.host} since ${owner.since}` : lockPath);
    }
    await sleep(Math.min(500, opts.staleMs / 4), undefined, opts.signal ? { signal: opts.signal } : {});
  }
}

async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
