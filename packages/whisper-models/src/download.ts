// Downloads an official ggml model: streams `<baseUrl>/resolve/main/ggml-<name>.bin` into
// `<file>.partial` (resuming a previous partial with a Range request, download-fetch.ts), verifies
// the SHA-1, fsyncs and renames into place. One download per file at a time (download-lock.ts), so workers
// sharing a model volume cooperate.
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
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
import { fetchWithRetries } from './download-fetch.js';
import { sha1File, sizeOf, syncDir } from './download-files.js';
import { acquireLock } from './download-lock.js';
import type { DownloadOptions } from './download-types.js';

export type { DownloadEvent, DownloadOptions } from './download-types.js';
export { sha1File };

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

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

function baseUrlFor(spec: ModelSpec | undefined, options: DownloadOptions): string {
  const base = options.baseUrl ?? spec?.baseUrl ?? DEFAULT_MODEL_BASE_URL;
  return base.replace(/\/+$/, '');
}
