// The official ggml Whisper models published by whisper.cpp, with the SHA-1 of each file as listed
// in whisper.cpp v1.9.1 `models/README.md` (the copy inside nodejs-whisper/cpp/whisper.cpp).
// Only models with a published SHA-1 are listed: a download that cannot be verified is refused.
import { basename, dirname, isAbsolute, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where whisper.cpp publishes its converted models (a Hugging Face repository). */
export const DEFAULT_MODEL_BASE_URL = 'https://huggingface.co/ggerganov/whisper.cpp';

const TINYDIARIZE_BASE_URL = 'https://huggingface.co/akashmjn/tinydiarize-whisper.cpp';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export interface ModelSpec {
  /** Catalog name as clients see it, e.g. `base.en`; the file is `ggml-<name>.bin`. */
  readonly name: string;
  /** SHA-1 of the published file (lower-case hex). */
  readonly sha1: string;
  /** Approximate size from the upstream table (not exact: use it for display and disk checks). */
  readonly approxBytes: number;
  /** False for the English-only `.en` models. */
  readonly multilingual: boolean;
  /** Weight quantization, e.g. `q5_0`; undefined for the f16 originals. */
  readonly quantization: string | undefined;
  /** Repository the file comes from when not whisper.cpp's own (tinydiarize). */
  readonly baseUrl: string | undefined;
}

type Row = readonly [name: string, approxBytes: number, sha1: string, baseUrl?: string];

const ROWS: readonly Row[] = [
  ['tiny', 75 * MiB, 'bd577a113a864445d4c299885e0cb97d4ba92b5f'],
  ['tiny.en', 75 * MiB, 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df'],
  ['base', 142 * MiB, '465707469ff3a37a2b9b8d8f89f2f99de7299dac'],
  ['base.en', 142 * MiB, '137c40403d78fd54d454da0f9bd998f78703390c'],
  ['small', 466 * MiB, '55356645c2b361a969dfd0ef2c5a50d530afd8d5'],
  ['small.en', 466 * MiB, 'db8a495a91d927739e50b3fc1cc4c6b8f6c2d022'],
  ['small.en-tdrz', 465 * MiB, 'b6c6e7e89af1a35c08e6de56b66ca6a02a2fdfa1', TINYDIARIZE_BASE_URL],
  ['medium', 1.5 * GiB, 'fd9727b6e1217c2f614f9b698455c4ffd82463b4'],
  ['medium.en', 1.5 * GiB, '8c30f0e44ce9560643ebd10bbe50cd20eafd3723'],
  ['large-v1', 2.9 * GiB, 'b1caaf735c4cc1429223d5a74f0f4d0b9b59a299'],
  ['large-v2', 2.9 * GiB, '0f4c8e34f21cf1a914c59d8b3ce882345ad349d6'],
  ['large-v2-q5_0', 1.1 * GiB, '00e39f2196344e901b3a2bd5814807a769bd1630'],
  ['large-v3', 2.9 * GiB, 'ad82bf6a9043ceed055076d0fd39f5f186ff8062'],
  ['large-v3-q5_0', 1.1 * GiB, 'e6e2ed78495d403bef4b7cff42ef4aaadcfea8de'],
  ['large-v3-turbo', 1.5 * GiB, '4af2b29d7ec73d781377bfd1758ca957a807e941'],
  ['large-v3-turbo-q5_0', 547 * MiB, 'e050f7970618a659205450ad97eb95a18d69c9ee'],
];

/** Every model `pnpm model` can download, in the upstream table's order. */
export const MODEL_CATALOG: readonly ModelSpec[] = ROWS.map(([name, approxBytes, sha1, baseUrl]) =>
  Object.freeze({
    name,
    sha1,
    approxBytes: Math.round(approxBytes),
    multilingual: !name.includes('.en'),
    quantization: /-(q\d_\d)$/.exec(name)?.[1],
    baseUrl,
  }),
);

/**
 * Silero VAD v6.2.0 in ggml, as whisper.cpp's `models/download-vad-model.sh` fetches it: not a
 * Whisper model (CAPTION_MODEL refuses it), the speech detector of CAPTION_VAD_MODEL=silero.
 * whisper.cpp publishes no checksum for it: the SHA-1 is that of the byte-identical-sized copy in
 * `fixtures/models` (whisper.cpp's own VAD test model, a test checks it): a different upstream
 * file is refused rather than trusted.
 */
export const SILERO_VAD = Object.freeze({
  alias: 'silero',
  name: 'silero-v6.2.0',
  baseUrl: 'https://huggingface.co/ggml-org/whisper-vad',
  sha1: '470e5d9d094ddba2f0a512cecc3732a252188abd',
  approxBytes: 885_098,
});

const BY_NAME = new Map(MODEL_CATALOG.map((spec) => [spec.name, spec]));

/** Catalog names, comma-separated, for error messages. */
export function modelNames(): string {
  return MODEL_CATALOG.map((spec) => spec.name).join(', ');
}

/** The catalog entry for `name`, or undefined when it is not an official model. */
export function modelSpec(name: string): ModelSpec | undefined {
  return BY_NAME.get(name);
}

export type ModelErrorCode =
  | 'MODEL_UNKNOWN'
  | 'MODEL_MISSING'
  | 'MODEL_HTTP'
  | 'MODEL_NETWORK'
  | 'MODEL_CHECKSUM'
  | 'MODEL_DISK'
  | 'MODEL_ABORTED';

export class ModelError extends Error {
  /** HTTP status of the last response, for MODEL_HTTP. */
  readonly status: number | undefined;

  constructor(
    readonly code: ModelErrorCode,
    message: string,
    options?: ErrorOptions & { status?: number },
  ) {
    super(message, options);
    this.name = 'ModelError';
    this.status = options?.status;
  }
}

export interface ResolvedModel {
  /** Name as clients see it: the catalog name, or the file's base name without `ggml-` and `.bin`. */
  readonly name: string;
  /** Absolute path of the model file (it may not exist yet). */
  readonly path: string;
  /** The catalog entry when `name` is an official model, else undefined. */
  readonly spec: ModelSpec | undefined;
  /** `catalog` when given by name (downloadable), `file` when given as a path (used as is). */
  readonly source: 'catalog' | 'file';
}

/** Path of the catalog model `name` inside `modelDir`. */
export function modelFile(name: string, modelDir: string): string {
  return resolve(modelDir, `ggml-${name}.bin`);
}

function isFilePath(value: string): boolean {
  return value.includes('/') || value.includes(sep) || value.endsWith('.bin');
}

/**
 * Turns CAPTION_MODEL into a file: a value with a path separator or ending in `.bin` is a file path
 * (relative to `cwd`); anything else must be a catalog name, whose file is `<modelDir>/ggml-<name>.bin`.
 */
export function resolveModel(
  nameOrPath: string,
  modelDir: string,
  { cwd = process.cwd() }: { cwd?: string } = {},
): ResolvedModel {
  const value = nameOrPath.trim();
  if (value === '') {
    throw new ModelError(
      'MODEL_UNKNOWN',
      `No model given: use one of ${modelNames()}, or a path to a ggml .bin file`,
    );
  }
  if (isFilePath(value)) {
    const path = isAbsolute(value) ? value : resolve(cwd, value);
    const name = basename(path)
      .replace(/^ggml-/, '')
      .replace(/\.bin$/, '');
    return { name, path, spec: modelSpec(name), source: 'file' };
  }
  const spec = modelSpec(value);
  if (!spec) {
    throw new ModelError(
      'MODEL_UNKNOWN',
      `Unknown model "${value}": use one of ${modelNames()}, or a path to a ggml .bin file`,
    );
  }
  return { name: spec.name, path: modelFile(spec.name, modelDir), spec, source: 'catalog' };
}

/** The repository root (this file sits at packages/whisper-models/{src,dist}/). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
