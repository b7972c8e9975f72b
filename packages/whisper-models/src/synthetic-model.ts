// Synthetic whisper.cpp test model: the real hparams, mel filters and vocabulary of a ggml file,
// followed by every tensor of that architecture (real names, shapes, types and order, so load,
// mel, encoder and decoder cost the same as the real model) holding deterministic weights that
// make decoding print a chosen text for any audio (the variants: synthetic-scripts.ts). How the
// weights do it: synthetic-weights.ts.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { type GgmlPrefix, isMultilingual, modelName, parseGgmlPrefix } from './ggml-header.js';
import { type TensorSpec, tensorBytes, tensorHeader, tensorLayout } from './ggml-tensors.js';
import { toHalfBits } from './half-float.js';
import { type SyntheticVariant, scriptPlan, syntheticText } from './synthetic-scripts.js';
import { decoderWeights, SYNTHETIC_LANGUAGE, SYNTHETIC_TEXT, specialTokens } from './synthetic-weights.js';

export { fromHalfBits, toHalfBits } from './half-float.js';
export {
  LOOP_TOKEN_LIMIT,
  SPEECH_BLOCK_SECONDS,
  SYNTHETIC_VARIANTS,
  type SyntheticVariant,
  syntheticText,
} from './synthetic-scripts.js';
export { parseGgmlPrefix, SYNTHETIC_LANGUAGE, SYNTHETIC_TEXT };

/** Bumped whenever the written bytes change for the same source file. */
export const SYNTHETIC_MODEL_VERSION = 3;

const FTYPE_F16 = 1;

/** File name of a synthetic model: ggml-synthetic-tiny.bin, ggml-synthetic-tiny-speech.bin, ... */
export function syntheticModelFile(name: string, variant: SyntheticVariant = 'test'): string {
  return `ggml-synthetic-${name}${variant === 'test' ? '' : `-${variant}`}.bin`;
}

export interface SyntheticModelInfo {
  /** tiny, tiny.en, base, ... as whisper.cpp's model type plus ".en" for English-only. */
  name: string;
  path: string;
  nVocab: number;
  multilingual: boolean;
  tensors: number;
  bytes: number;
  variant: SyntheticVariant;
  /** What it says for 30 s of audio. */
  text: string;
  language: string | null;
}

const ZERO_CHUNK = Buffer.alloc(1 << 20);
const SOURCE_READ_LIMIT = 16 << 20;

export interface WriteSyntheticModelOptions {
  /** A ggml whisper file: only its prefix (header, mel filters, vocabulary) is used. */
  source: string;
  destination: string;
  /** What the model says (default `test`: " test" for any audio). */
  variant?: SyntheticVariant;
}

async function readPrefix(source: string): Promise<{ prefix: GgmlPrefix; bytes: Buffer }> {
  const size = (await stat(source)).size;
  let bytes: Buffer;
  if (size <= SOURCE_READ_LIMIT) {
    bytes = await readFile(source);
  } else {
    const fh = await open(source, 'r');
    try {
      bytes = Buffer.alloc(SOURCE_READ_LIMIT);
      await fh.read(bytes, 0, SOURCE_READ_LIMIT, 0);
    } finally {
      await fh.close();
    }
  }
  return { prefix: parseGgmlPrefix(bytes), bytes };
}

/**
 * Writes the synthetic model for `source` to `destination` (through a temporary file renamed
 * into place) and describes it.
 */
export async function writeSyntheticModel(options: WriteSyntheticModelOptions): Promise<SyntheticModelInfo> {
  const { prefix, bytes } = await readPrefix(options.source);
  const h = prefix.hparams;
  const variant = options.variant ?? 'test';
  const weights = decoderWeights(h, scriptPlan(variant, prefix, specialTokens(prefix)));
  const layout = tensorLayout(h);

  const head = Buffer.from(bytes.subarray(0, prefix.length));
  // the tensors written here are f16 (ftype 1) whatever the source was
  head.writeInt32LE(FTYPE_F16, 44);

  const tmp = `${options.destination}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fh = await open(tmp, 'w');
  let written = 0;
  const put = async (buf: Buffer): Promise<void> => {
    let off = 0;
    while (off < buf.length) {
      const { bytesWritten } = await fh.write(buf, off, buf.length - off);
      off += bytesWritten;
    }
    written += buf.length;
  };
  const zeros = async (n: number): Promise<void> => {
    for (let left = n; left > 0; left -= ZERO_CHUNK.length) {
      await put(ZERO_CHUNK.subarray(0, Math.min(left, ZERO_CHUNK.length)));
    }
  };
  try {
    await put(head);
    for (const spec of layout) {
      await put(tensorHeader(spec));
      if (spec.name === 'decoder.token_embedding.weight') {
        await writeEmbedding(put, zeros, spec, weights.rows);
      } else if (spec.name === 'decoder.ln.weight') {
        await put(f32Buffer(weights.lnWeight));
      } else if (spec.name === 'decoder.ln.bias') {
        await put(f32Buffer(weights.lnBias));
      } else {
        await zeros(tensorBytes(spec));
      }
    }
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  await rename(tmp, options.destination);

  return {
    name: modelName(h),
    path: options.destination,
    nVocab: h.nVocab,
    multilingual: isMultilingual(h),
    tensors: layout.length,
    bytes: written,
    variant,
    text: syntheticText(variant),
    language: isMultilingual(h) ? SYNTHETIC_LANGUAGE : null,
  };
}

async function writeEmbedding(
  put: (b: Buffer) => Promise<void>,
  zeros: (n: number) => Promise<void>,
  spec: TensorSpec,
  rows: Map<number, Float32Array>,
): Promise<void> {
  const [width = 0, count = 0] = spec.shape;
  const rowBytes = width * 2;
  let id = 0;
  for (const [row, values] of [...rows].sort((a, b) => a[0] - b[0])) {
    if (row < id || row >= count) throw new Error(`embedding row ${row} out of order or range`);
    await zeros((row - id) * rowBytes);
    const buf = Buffer.alloc(rowBytes);
    for (const [i, x] of values.entries()) buf.writeUInt16LE(toHalfBits(x), 2 * i);
    await put(buf);
    id = row + 1;
  }
  await zeros((count - id) * rowBytes);
}

function f32Buffer(values: Float32Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}
