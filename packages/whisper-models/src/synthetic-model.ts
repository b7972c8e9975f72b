// Synthetic whisper.cpp test model: the real hparams, mel filters and vocabulary of a ggml file,
// followed by every tensor of that architecture (real names, shapes, types and order, so load,
// mel, encoder and decoder cost the same as the real model) holding deterministic weights that
// make decoding print SYNTHETIC_TEXT for any audio.
//
// Why the weights decode deterministically:
// - Every tensor is zero except the token embedding and the decoder's final layer norm. With zero
//   weights and biases each encoder and decoder block adds exactly 0 to the residual stream
//   (zero query/key/value, gelu(0) = 0), so the decoder's last hidden state is exactly
//   E[last token] (the positional embedding is zero too): neither the audio nor the earlier
//   tokens can change it.
// - The final layer norm then gives h = w * norm(E[last]) + b and the logits are E · h (the token
//   embedding E is tied). Most rows of E are zero, so most tokens get logit 0 at every step. A
//   handful of rows are non-zero on a few "link" coordinates: link (u, v, m) puts sqrt(m) on one
//   coordinate of both rows, so right after u, v's logit rises by m units (and the other way
//   round: tied embeddings make links symmetric). Coordinates with a negative layer-norm gain
//   lower a token's logit right after itself, and one coordinate with gain 0 and bias 1 adds a
//   constant logit to a row (the priors of <|en|> and end-of-text). The other coordinates of
//   each used row cancel its mean, so the layer norm only rescales the row; the gain makes one
//   unit worth at least UNIT_LOGITS logits.
// - The links follow what whisper.cpp's logit filters let through at each step
//   (whisper_process_logits): prompt (sot / task / notimestamps) -> <|0.00|> (" test" without
//   timestamps; blank and end-of-text are suppressed at the start) -> " test" -> <|30.00|>
//   (end-of-text without timestamps) -> end-of-text. The lone closing timestamp at 30 s consumes
//   the whole window, so audio over 30 s advances one window at a time, without fallbacks; the
//   segment always reads [window start --> window start + 30 s].
// - After any other token (a beam that strayed) the hidden state is the bias alone, and the
//   end-of-text prior ends the sequence.
// - Language detection compares the language-token logits after <|startoftext|>: only <|en|> has
//   a prior, so it returns "en" with p = e^10/(e^10 + 98).
// - Chosen tokens lead by at least 15 logits (mostly 25+) over ~51k zero logits, so each has
//   probability ~1: no temperature fallback (avg logprob < -1), and beam search agrees.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';

/** Bumped whenever the written bytes change for the same source file. */
export const SYNTHETIC_MODEL_VERSION = 2;
/** What greedy decoding of a synthetic model prints, whatever the audio. */
export const SYNTHETIC_TEXT = ' test';
/** What language detection returns on a multilingual synthetic model. */
export const SYNTHETIC_LANGUAGE = 'en';

const GGML_MAGIC = 0x67676d6c;
const FTYPE_F16 = 1;
const UNIT_LOGITS = 25;

export type TensorType = 'f32' | 'f16';

export interface WhisperHparams {
  nVocab: number;
  nAudioCtx: number;
  nAudioState: number;
  nAudioHead: number;
  nAudioLayer: number;
  nTextCtx: number;
  nTextState: number;
  nTextHead: number;
  nTextLayer: number;
  nMels: number;
  ftype: number;
}

/** The part of a ggml whisper file before its tensors. */
export interface GgmlPrefix {
  hparams: WhisperHparams;
  melFilters: { nMel: number; nFft: number };
  /** Tokens stored in the file (whisper.cpp names the missing special ids itself). */
  vocab: Buffer[];
  /** Byte length of magic + hparams + mel filters + vocabulary. */
  length: number;
}

export interface TensorSpec {
  name: string;
  /** ggml order: ne[0] is the fastest-varying dimension. */
  shape: number[];
  type: TensorType;
}

/** Token ids as whisper.cpp computes them (whisper_model_load, struct whisper_vocab). */
export interface SpecialTokens {
  eot: number;
  sot: number;
  translate: number;
  transcribe: number;
  solm: number;
  prev: number;
  nosp: number;
  not: number;
  beg: number;
  /** <|en|>, or null on an English-only model. */
  english: number | null;
  /** The single text token the synthetic model emits. */
  text: number;
  /** The closing timestamp: <|30.00|> on standard models. */
  end: number;
}

export interface SyntheticModelInfo {
  /** tiny, tiny.en, base, ... as whisper.cpp's model type plus ".en" for English-only. */
  name: string;
  path: string;
  nVocab: number;
  multilingual: boolean;
  tensors: number;
  bytes: number;
  text: string;
  textToken: number;
  language: string | null;
}

// ---------------------------------------------------------------------------------------------
// Reading the source prefix

export function parseGgmlPrefix(buf: Buffer): GgmlPrefix {
  let at = 0;
  const need = (n: number): void => {
    if (at + n > buf.length) throw new Error('truncated ggml whisper header');
  };
  const i32 = (): number => {
    need(4);
    const v = buf.readInt32LE(at);
    at += 4;
    return v;
  };
  if (i32() >>> 0 !== GGML_MAGIC) throw new Error('not a ggml whisper file (bad magic)');
  const hparams: WhisperHparams = {
    nVocab: i32(),
    nAudioCtx: i32(),
    nAudioState: i32(),
    nAudioHead: i32(),
    nAudioLayer: i32(),
    nTextCtx: i32(),
    nTextState: i32(),
    nTextHead: i32(),
    nTextLayer: i32(),
    nMels: i32(),
    ftype: i32(),
  };
  if (hparams.nAudioState !== hparams.nTextState) throw new Error('n_audio_state != n_text_state');
  const nMel = i32();
  const nFft = i32();
  need(nMel * nFft * 4);
  at += nMel * nFft * 4;
  const count = i32();
  const vocab: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const len = i32() >>> 0; // uint32 in whisper.cpp
    need(len);
    vocab.push(buf.subarray(at, at + len));
    at += len;
  }
  return { hparams, melFilters: { nMel, nFft }, vocab, length: at };
}

export function isMultilingual(h: WhisperHparams): boolean {
  return h.nVocab >= 51865;
}

export function modelName(h: WhisperHparams): string {
  const byLayers: Record<number, string> = { 4: 'tiny', 6: 'base', 12: 'small', 24: 'medium', 32: 'large' };
  const base = byLayers[h.nAudioLayer] ?? `layers${h.nAudioLayer}`;
  return isMultilingual(h) ? base : `${base}.en`;
}

export function specialTokens(prefix: GgmlPrefix): SpecialTokens {
  const { hparams } = prefix;
  const multilingual = isMultilingual(hparams);
  const numLanguages = hparams.nVocab - 51765 - (multilingual ? 1 : 0);
  const shift = multilingual ? numLanguages - 98 : 0;
  const sot = 50257 + (multilingual ? 1 : 0);
  const beg = 50363 + shift;
  // whisper.cpp maps strings to ids with a std::map, so a duplicated string means its last id
  let text = -1;
  const wanted = Buffer.from(SYNTHETIC_TEXT, 'utf8');
  prefix.vocab.forEach((token, id) => {
    if (token.equals(wanted)) text = id;
  });
  if (text < 0) throw new Error(`the vocabulary has no ${JSON.stringify(SYNTHETIC_TEXT)} token`);
  return {
    eot: 50256 + (multilingual ? 1 : 0),
    sot,
    translate: 50357 + shift,
    transcribe: 50358 + shift,
    solm: 50359 + shift,
    prev: 50360 + shift,
    nosp: 50361 + shift,
    not: 50362 + shift,
    beg,
    // language index 0 is "en" (g_lang)
    english: multilingual ? sot + 1 : null,
    text,
    // timestamps step 30 s / n_audio_ctx, so this is <|30.00|>
    end: beg + hparams.nAudioCtx,
  };
}

// ---------------------------------------------------------------------------------------------
// Tensor layout: the order of the PyTorch state dict that convert-pt-to-ggml.py walks

export function tensorLayout(h: WhisperHparams): TensorSpec[] {
  const s = h.nAudioState;
  const t = h.nTextState;
  const out: TensorSpec[] = [];
  const add = (name: string, shape: number[], type: TensorType): void => {
    out.push({ name, shape, type });
  };
  const attention = (prefix: string, n: number): void => {
    add(`${prefix}.query.weight`, [n, n], 'f16');
    add(`${prefix}.query.bias`, [n], 'f32');
    add(`${prefix}.key.weight`, [n, n], 'f16');
    add(`${prefix}.value.weight`, [n, n], 'f16');
    add(`${prefix}.value.bias`, [n], 'f32');
    add(`${prefix}.out.weight`, [n, n], 'f16');
    add(`${prefix}.out.bias`, [n], 'f32');
  };
  const norm = (prefix: string, n: number): void => {
    add(`${prefix}.weight`, [n], 'f32');
    add(`${prefix}.bias`, [n], 'f32');
  };
  const mlp = (prefix: string, n: number): void => {
    add(`${prefix}.mlp.0.weight`, [n, 4 * n], 'f16');
    add(`${prefix}.mlp.0.bias`, [4 * n], 'f32');
    add(`${prefix}.mlp.2.weight`, [4 * n, n], 'f16');
    add(`${prefix}.mlp.2.bias`, [n], 'f32');
    norm(`${prefix}.mlp_ln`, n);
  };

  add('encoder.positional_embedding', [s, h.nAudioCtx], 'f32');
  add('encoder.conv1.weight', [3, h.nMels, s], 'f16');
  add('encoder.conv1.bias', [1, s], 'f32');
  add('encoder.conv2.weight', [3, s, s], 'f16');
  add('encoder.conv2.bias', [1, s], 'f32');
  for (let i = 0; i < h.nAudioLayer; i++) {
    const p = `encoder.blocks.${i}`;
    attention(`${p}.attn`, s);
    norm(`${p}.attn_ln`, s);
    mlp(p, s);
  }
  norm('encoder.ln_post', s);
  add('decoder.positional_embedding', [t, h.nTextCtx], 'f32');
  add('decoder.token_embedding.weight', [t, h.nVocab], 'f16');
  for (let i = 0; i < h.nTextLayer; i++) {
    const p = `decoder.blocks.${i}`;
    attention(`${p}.attn`, t);
    norm(`${p}.attn_ln`, t);
    attention(`${p}.cross_attn`, t);
    norm(`${p}.cross_attn_ln`, t);
    mlp(p, t);
  }
  norm('decoder.ln', t);
  return out;
}

export function tensorBytes(spec: TensorSpec): number {
  return spec.shape.reduce((a, b) => a * b, 1) * (spec.type === 'f16' ? 2 : 4);
}

function tensorHeader(spec: TensorSpec): Buffer {
  const name = Buffer.from(spec.name, 'utf8');
  const header = Buffer.alloc(12 + 4 * spec.shape.length + name.length);
  header.writeInt32LE(spec.shape.length, 0);
  header.writeInt32LE(name.length, 4);
  header.writeInt32LE(spec.type === 'f16' ? 1 : 0, 8);
  for (const [i, n] of spec.shape.entries()) header.writeInt32LE(n, 12 + 4 * i);
  name.copy(header, 12 + 4 * spec.shape.length);
  return header;
}

// ---------------------------------------------------------------------------------------------
// The non-zero weights

/** Row values of the token embedding (f32 before the f16 cast) and the final layer norm. */
export interface DecoderWeights {
  rows: Map<number, Float32Array>;
  lnWeight: Float32Array;
  lnBias: Float32Array;
}

type Role = 'prompt' | 'begin' | 'text' | 'end' | 'eot' | 'english';

// [u, v, m]: after u, v's logit rises by m units (and after v, u's). What whisper.cpp allows at
// each step decides the numbers: see the header comment.
const LINKS: Array<[Role, Role, number]> = [
  ['prompt', 'begin', 2], // first token with timestamps: <|0.00|> beats " test"
  ['prompt', 'text', 1], // first token without timestamps (timestamps masked)
  ['begin', 'text', 1], // after <|0.00|>: " test" (timestamps masked by the pair rule)
  ['text', 'end', 3], // after " test": <|30.00|> beats end-of-text ...
  ['text', 'eot', 2], // ... which wins when timestamps are off
  ['end', 'eot', 1], // after <|30.00|>: end-of-text (only it and <|30.00|> are allowed)
];
// Wanted logit of a token right after itself (units): " test" and <|30.00|> never repeat, and
// the prompt tokens stay far below <|en|> after <|startoftext|>: whisper.cpp's language
// detection also reads id sot+100 ("yue"), which is <|translate|> on 99-language models.
const SELF: Partial<Record<Role, number>> = { prompt: -1, text: -1, end: 0 };
// Constant logits (not units): <|en|> wins language detection; after any token outside the
// script (a beam that strayed) end-of-text beats the zero logits of everything else.
const PRIOR: Partial<Record<Role, number>> = { english: 10, eot: 10 };

export function decoderWeights(h: WhisperHparams, tokens: SpecialTokens): DecoderWeights {
  const d = h.nTextState;
  const roles: Role[] = ['prompt', 'begin', 'text', 'end', 'eot', 'english'];
  const coords = new Map<Role, Map<number, number>>(roles.map((r) => [r, new Map()]));
  const set = (role: Role, c: number, x: number): void => {
    coords.get(role)?.set(c, x);
  };
  const gain = new Map<number, number>();
  const own = new Map<Role, number>();
  const constant = 0; // gain 0, bias 1
  let next = constant + 1;
  for (const [u, v, m] of LINKS) {
    const c = next++;
    set(u, c, Math.sqrt(m));
    set(v, c, Math.sqrt(m));
    gain.set(c, 1);
    own.set(u, (own.get(u) ?? 0) + m);
    own.set(v, (own.get(v) ?? 0) + m);
  }
  for (const [role, wanted] of Object.entries(SELF) as Array<[Role, number]>) {
    const excess = (own.get(role) ?? 0) - wanted;
    if (excess <= 0) continue;
    const c = next++;
    set(role, c, Math.sqrt(excess));
    gain.set(c, -1);
  }
  if (next + 8 > d) throw new Error('n_text_state too small for the synthetic links');

  // After token s the normalised state is E[s] * sqrt(d) / |E[s]|, so a unit is worth
  // gain * sqrt(d) / |E[s]| logits: size the gain for the longest row (the least amplified).
  const length = (m: Map<number, number>): number =>
    Math.sqrt([...m.values()].reduce((a, x) => a + x * x, 0));
  const longest = Math.max(...roles.map((r) => length(coords.get(r) ?? new Map())));
  const scale = (UNIT_LOGITS * longest) / Math.sqrt(d);
  for (const [role, logit] of Object.entries(PRIOR) as Array<[Role, number]>) set(role, constant, logit);

  const lnWeight = new Float32Array(d);
  const lnBias = new Float32Array(d);
  for (const [c, g] of gain) lnWeight[c] = g * scale;
  lnBias[constant] = 1;

  // Coordinates from `next` on have gain 0 and bias 0: spreading minus the row's sum over them
  // gives the row zero mean, so ggml_norm only rescales it, and changes no logit.
  const row = (role: Role): Float32Array => {
    const r = new Float32Array(d);
    let sum = 0;
    for (const [c, x] of coords.get(role) ?? []) {
      r[c] = roundHalf(x);
      sum += r[c] ?? 0;
    }
    r.fill(roundHalf(-sum / (d - next)), next);
    return r;
  };
  const roleOf: Array<[number | null, Role]> = [
    [tokens.sot, 'prompt'],
    [tokens.translate, 'prompt'],
    [tokens.transcribe, 'prompt'],
    [tokens.not, 'prompt'],
    [tokens.beg, 'begin'],
    [tokens.text, 'text'],
    [tokens.end, 'end'],
    [tokens.eot, 'eot'],
    [tokens.english, 'english'],
  ];
  const rows = new Map<number, Float32Array>();
  for (const [id, role] of roleOf) if (id !== null) rows.set(id, row(role));
  return { rows, lnWeight, lnBias };
}

// ---------------------------------------------------------------------------------------------
// f16

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** IEEE binary16 bits of a number, rounded to nearest even. */
export function toHalfBits(value: number): number {
  f32Scratch[0] = value;
  const x = u32Scratch[0] ?? 0;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  // a carry out of the mantissa bumps the exponent, which is the correct rounding
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

export function fromHalfBits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

function roundHalf(value: number): number {
  return fromHalfBits(toHalfBits(value));
}

// ---------------------------------------------------------------------------------------------
// Writing

const ZERO_CHUNK = Buffer.alloc(1 << 20);
const SOURCE_READ_LIMIT = 16 << 20;

export interface WriteSyntheticModelOptions {
  /** A ggml whisper file: only its prefix (header, mel filters, vocabulary) is used. */
  source: string;
  destination: string;
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
  const tokens = specialTokens(prefix);
  const weights = decoderWeights(h, tokens);
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
    text: SYNTHETIC_TEXT,
    textToken: tokens.text,
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
