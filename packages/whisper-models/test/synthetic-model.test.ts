// The synthetic model writer, checked without whisper.cpp: the file layout whisper_model_load
// expects, and a replay of whisper.cpp's greedy decoding rules on the written weights.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forTestsModel } from '@live-captions/test-services/fixtures';
import {
  fromHalfBits,
  parseGgmlPrefix,
  SYNTHETIC_TEXT,
  toHalfBits,
  writeSyntheticModel,
} from '../src/synthetic-model.js';

interface Tensor {
  name: string;
  shape: number[];
  type: 'f32' | 'f16';
  data: Buffer;
}

/** Walks the tensors the way whisper_model_load does. */
function readTensors(file: Buffer, from: number): Tensor[] {
  const tensors: Tensor[] = [];
  let at = from;
  while (at < file.length) {
    const nDims = file.readInt32LE(at);
    const nameLength = file.readInt32LE(at + 4);
    const ttype = file.readInt32LE(at + 8);
    at += 12;
    const shape: number[] = [];
    for (let i = 0; i < nDims; i++, at += 4) shape.push(file.readInt32LE(at));
    const name = file.subarray(at, at + nameLength).toString('utf8');
    at += nameLength;
    expect([0, 1]).toContain(ttype);
    const bytes = shape.reduce((a, b) => a * b, 1) * (ttype === 1 ? 2 : 4);
    tensors.push({ name, shape, type: ttype === 1 ? 'f16' : 'f32', data: file.subarray(at, at + bytes) });
    at += bytes;
  }
  expect(at).toBe(file.length);
  return tensors;
}

/** What whisper.cpp v1.9.1 creates for a model (whisper_model_load), written out independently. */
function expectedTensors(
  s: number,
  audioCtx: number,
  textCtx: number,
  mels: number,
  vocab: number,
  encLayers: number,
  decLayers: number,
) {
  const attention = (p: string): Array<[string, number[], string]> => [
    [`${p}.query.weight`, [s, s], 'f16'],
    [`${p}.query.bias`, [s], 'f32'],
    [`${p}.key.weight`, [s, s], 'f16'],
    [`${p}.value.weight`, [s, s], 'f16'],
    [`${p}.value.bias`, [s], 'f32'],
    [`${p}.out.weight`, [s, s], 'f16'],
    [`${p}.out.bias`, [s], 'f32'],
  ];
  const ln = (p: string): Array<[string, number[], string]> => [
    [`${p}.weight`, [s], 'f32'],
    [`${p}.bias`, [s], 'f32'],
  ];
  const mlp = (p: string): Array<[string, number[], string]> => [
    [`${p}.mlp.0.weight`, [s, 4 * s], 'f16'],
    [`${p}.mlp.0.bias`, [4 * s], 'f32'],
    [`${p}.mlp.2.weight`, [4 * s, s], 'f16'],
    [`${p}.mlp.2.bias`, [s], 'f32'],
    ...ln(`${p}.mlp_ln`),
  ];
  const out: Array<[string, number[], string]> = [
    ['encoder.positional_embedding', [s, audioCtx], 'f32'],
    ['encoder.conv1.weight', [3, mels, s], 'f16'],
    ['encoder.conv1.bias', [1, s], 'f32'],
    ['encoder.conv2.weight', [3, s, s], 'f16'],
    ['encoder.conv2.bias', [1, s], 'f32'],
  ];
  for (let i = 0; i < encLayers; i++) {
    out.push(
      ...attention(`encoder.blocks.${i}.attn`),
      ...ln(`encoder.blocks.${i}.attn_ln`),
      ...mlp(`encoder.blocks.${i}`),
    );
  }
  out.push(...ln('encoder.ln_post'));
  out.push(
    ['decoder.positional_embedding', [s, textCtx], 'f32'],
    ['decoder.token_embedding.weight', [s, vocab], 'f16'],
  );
  for (let i = 0; i < decLayers; i++) {
    const p = `decoder.blocks.${i}`;
    out.push(
      ...attention(`${p}.attn`),
      ...ln(`${p}.attn_ln`),
      ...attention(`${p}.cross_attn`),
      ...ln(`${p}.cross_attn_ln`),
      ...mlp(p),
    );
  }
  out.push(...ln('decoder.ln'));
  return out.map(([name, shape, type]) => ({ name, shape, type }));
}

const zero = Buffer.alloc(1 << 16);

function isZero(buf: Buffer): boolean {
  for (let at = 0; at < buf.length; at += zero.length) {
    const part = buf.subarray(at, Math.min(buf.length, at + zero.length));
    if (!part.equals(zero.subarray(0, part.length))) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// A replay of whisper.cpp's greedy decoding (whisper_full_with_state + whisper_process_logits,
// temperature 0) on the written weights. With every block weight zero (asserted below) the last
// hidden state is layer_norm(E[last token]), so the logits depend on the last token only.

interface Ids {
  eot: number;
  sot: number;
  translate: number;
  transcribe: number;
  solm: number;
  prev: number;
  nosp: number;
  not: number;
  beg: number;
  space: number;
}

function idsFor(nVocab: number): Ids {
  const ml = nVocab >= 51865;
  const dt = ml ? nVocab - 51765 - 1 - 98 : 0;
  return {
    eot: 50256 + (ml ? 1 : 0),
    sot: 50257 + (ml ? 1 : 0),
    translate: 50357 + dt,
    transcribe: 50358 + dt,
    solm: 50359 + dt,
    prev: 50360 + dt,
    nosp: 50361 + dt,
    not: 50362 + dt,
    beg: 50363 + dt,
    space: 220,
  };
}

class Replay {
  private readonly rows = new Map<number, Float32Array>();

  constructor(
    private readonly nVocab: number,
    private readonly width: number,
    embedding: Buffer,
    private readonly lnWeight: Float32Array,
    private readonly lnBias: Float32Array,
  ) {
    const rowBytes = width * 2;
    for (let id = 0; id < nVocab; id++) {
      const raw = embedding.subarray(id * rowBytes, (id + 1) * rowBytes);
      if (isZero(raw)) continue;
      const row = new Float32Array(width);
      for (let i = 0; i < width; i++) row[i] = fromHalfBits(raw.readUInt16LE(2 * i));
      this.rows.set(id, row);
    }
  }

  get nonZeroRows(): number {
    return this.rows.size;
  }

  logits(last: number): Float64Array {
    const x = this.rows.get(last) ?? new Float32Array(this.width);
    const d = this.width;
    const mean = x.reduce((a, v) => a + v, 0) / d;
    const variance = x.reduce((a, v) => a + (v - mean) ** 2, 0) / d;
    const h = Array.from(
      x,
      (v, i) => ((v - mean) / Math.sqrt(variance + 1e-5)) * (this.lnWeight[i] ?? 0) + (this.lnBias[i] ?? 0),
    );
    const out = new Float64Array(this.nVocab);
    for (const [id, row] of this.rows) out[id] = row.reduce((a, v, i) => a + v * (h[i] ?? 0), 0);
    return out;
  }
}

function maxOf(values: Float64Array): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v > max) max = v;
  return max;
}

interface Step {
  id: number;
  p: number;
}

function decode(
  replay: Replay,
  ids: Ids,
  nVocab: number,
  prompt: number[],
  noTimestamps: boolean,
  seekEnd: number,
): Step[] {
  const tokens: Step[] = [];
  let hasTs = false;
  let seekDelta = 3000;
  for (let i = 0; i < 16; i++) {
    const last = tokens.length ? (tokens[tokens.length - 1]?.id ?? 0) : (prompt[prompt.length - 1] ?? 0);
    const logits = replay.logits(last);
    const off = (from: number, to: number): void => {
      logits.fill(Number.NEGATIVE_INFINITY, from, to);
    };
    if (tokens.length === 0) {
      logits[ids.eot] = Number.NEGATIVE_INFINITY;
      logits[ids.space] = Number.NEGATIVE_INFINITY;
    }
    logits[ids.not] = Number.NEGATIVE_INFINITY;
    if (noTimestamps) off(ids.beg, nVocab);
    for (const id of [ids.sot, ids.nosp, ids.solm, ids.translate, ids.transcribe, ids.prev])
      logits[id] = Number.NEGATIVE_INFINITY;
    off(ids.sot + 1, ids.sot + 101); // g_lang has 100 entries
    const lastTs = tokens.length > 0 && last >= ids.beg;
    const penultimateTs = tokens.length < 2 || (tokens[tokens.length - 2]?.id ?? 0) >= ids.beg;
    if (lastTs) {
      if (penultimateTs) off(ids.beg, nVocab);
      else off(0, ids.eot);
    }
    if (tokens.length === 0) off(ids.beg + 50 + 1, nVocab); // max_initial_ts 1.0 s
    if (hasTs) off(ids.beg, ids.beg + seekDelta / 2);
    const max = maxOf(logits);
    const lse = Math.log(logits.reduce((a, v) => a + Math.exp(v - max), 0)) + max;
    const logprobs = logits.map((v) => v - lse);
    const tsMax = maxOf(logprobs.subarray(ids.beg));
    const tsLse = Math.log(logprobs.subarray(ids.beg).reduce((a, v) => a + Math.exp(v - tsMax), 0)) + tsMax;
    if (tsLse > maxOf(logprobs.subarray(0, ids.beg))) logprobs.fill(Number.NEGATIVE_INFINITY, 0, ids.beg);
    let best = 0;
    for (let id = 1; id < nVocab; id++) if ((logprobs[id] ?? 0) > (logprobs[best] ?? 0)) best = id;
    tokens.push({ id: best, p: Math.exp(logprobs[best] ?? 0) });
    if (best > ids.beg) {
      hasTs = true;
      seekDelta = 2 * (best - ids.beg);
    }
    if (best === ids.eot || (hasTs && seekDelta + 10 >= seekEnd)) break;
  }
  return tokens;
}

// ---------------------------------------------------------------------------------------------

describe('synthetic whisper model', () => {
  let dir: string;
  const models = new Map<string, { source: Buffer; file: Buffer; tensors: Tensor[]; prefixLength: number }>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'synthetic-model-'));
    for (const name of ['tiny', 'tiny.en', 'base'] as const) {
      const source = forTestsModel(name);
      const destination = join(dir, `ggml-synthetic-${name}.bin`);
      const info = await writeSyntheticModel({ source, destination });
      const file = await readFile(destination);
      expect(info.bytes).toBe(file.length);
      expect(info.name).toBe(name);
      const prefixLength = parseGgmlPrefix(file).length;
      models.set(name, {
        source: await readFile(source),
        file,
        tensors: readTensors(file, prefixLength),
        prefixLength,
      });
    }
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const model = (name: string) => {
    const m = models.get(name);
    if (!m) throw new Error(`no ${name}`);
    return m;
  };

  it('copies magic, hparams, mel filters and vocabulary byte for byte', () => {
    for (const name of ['tiny', 'tiny.en', 'base'] as const) {
      const { source, file, prefixLength } = model(name);
      expect(prefixLength).toBe(parseGgmlPrefix(source).length);
      expect(file.subarray(0, prefixLength).equals(source.subarray(0, prefixLength))).toBe(true);
    }
    const hp = parseGgmlPrefix(model('base').file).hparams;
    expect(hp).toEqual({
      nVocab: 51865,
      nAudioCtx: 1500,
      nAudioState: 512,
      nAudioHead: 8,
      nAudioLayer: 6,
      nTextCtx: 448,
      nTextState: 512,
      nTextHead: 8,
      nTextLayer: 6,
      nMels: 80,
      ftype: 1,
    });
    expect(parseGgmlPrefix(model('tiny.en').file).hparams.nVocab).toBe(51864);
  });

  it('holds every tensor whisper.cpp loads, in state-dict order, with its real shape and type', () => {
    const cases: Array<[string, number, number, number, number]> = [
      ['tiny', 384, 51865, 4, 167],
      ['tiny.en', 384, 51864, 4, 167],
      ['base', 512, 51865, 6, 245],
    ];
    for (const [name, s, vocab, layers, count] of cases) {
      const { tensors } = model(name);
      expect(tensors).toHaveLength(count);
      const expected = expectedTensors(s, 1500, 448, 80, vocab, layers, layers);
      expect(tensors.map(({ name: n, shape, type }) => ({ name: n, shape, type }))).toEqual(expected);
    }
    // about the size of the official f16 files (ggml-tiny.bin 77.7 MB, ggml-base.bin 148.0 MB)
    expect(Math.round(model('tiny').file.length / 1e5) / 10).toBe(77.7);
    expect(Math.round(model('base').file.length / 1e5) / 10).toBe(148);
  });

  it('is zero everywhere except the token embedding and the final layer norm', () => {
    for (const name of ['tiny', 'base']) {
      const live = ['decoder.token_embedding.weight', 'decoder.ln.weight', 'decoder.ln.bias'];
      for (const t of model(name).tensors) {
        expect({ name: t.name, zero: isZero(t.data) }).toEqual({
          name: t.name,
          zero: !live.includes(t.name),
        });
      }
    }
  });

  it.each(['tiny', 'tiny.en', 'base'])(
    '%s decodes " test" then stops, under every prompt whisper.cpp builds',
    (name) => {
      const { file, tensors } = model(name);
      const nVocab = parseGgmlPrefix(file).hparams.nVocab;
      const ids = idsFor(nVocab);
      const get = (n: string): Tensor => {
        const t = tensors.find((x) => x.name === n);
        if (!t) throw new Error(n);
        return t;
      };
      const f32 = (t: Tensor): Float32Array =>
        new Float32Array(
          Float32Array.from({ length: t.data.length / 4 }, (_, i) => t.data.readFloatLE(4 * i)),
        );
      const width = get('decoder.ln.weight').shape[0] ?? 0;
      const replay = new Replay(
        nVocab,
        width,
        get('decoder.token_embedding.weight').data,
        f32(get('decoder.ln.weight')),
        f32(get('decoder.ln.bias')),
      );
      expect(replay.nonZeroRows).toBeLessThan(16);

      const vocab = parseGgmlPrefix(file).vocab;
      const text = vocab.findIndex((t) => t.toString('utf8') === SYNTHETIC_TEXT);
      const multilingual = nVocab >= 51865;
      const prompts = multilingual
        ? [
            [ids.sot, ids.sot + 1, ids.transcribe],
            [ids.sot, ids.sot + 3, ids.translate],
          ]
        : [[ids.sot]];
      const end = ids.beg + 1500;
      for (const prompt of prompts) {
        // 11 s of audio: <|0.00|> test <|30.00|>, which reaches the end of the audio
        expect(decode(replay, ids, nVocab, prompt, false, 1100).map((s) => s.id)).toEqual([
          ids.beg,
          text,
          end,
        ]);
        // 66 s: the same, then end-of-text, and whisper.cpp moves on by 30 s
        expect(decode(replay, ids, nVocab, prompt, false, 6600).map((s) => s.id)).toEqual([
          ids.beg,
          text,
          end,
          ids.eot,
        ]);
        // no timestamps: test, end-of-text
        const plain = decode(replay, ids, nVocab, [...prompt, ids.not], true, 1100);
        expect(plain.map((s) => s.id)).toEqual([text, ids.eot]);
        // every step is certain, so temperature fallback never starts
        for (const step of [...plain, ...decode(replay, ids, nVocab, prompt, false, 6600)]) {
          expect(step.p).toBeGreaterThan(0.99999);
        }
      }
      // after <|startoftext|> no-speech is improbable, and language detection picks <|en|>
      const first = replay.logits(ids.sot);
      const max = maxOf(first);
      const sum = first.reduce((a, v) => a + Math.exp(v - max), 0);
      expect(Math.exp((first[ids.nosp] ?? 0) - max) / sum).toBeLessThan(1e-6);
      if (multilingual) {
        const langs = Array.from(first.subarray(ids.sot + 1, ids.sot + 101));
        const best = langs.indexOf(Math.max(...langs));
        expect(best).toBe(0);
        const lmax = langs[0] ?? 0;
        const p = 1 / langs.reduce((a, v) => a + Math.exp(v - lmax), 0);
        expect(p).toBeCloseTo(Math.exp(10) / (Math.exp(10) + 98), 4);
      }
    },
  );

  it('rounds to f16 like numpy', () => {
    expect(toHalfBits(1)).toBe(0x3c00);
    expect(toHalfBits(-2)).toBe(0xc000);
    expect(toHalfBits(65504)).toBe(0x7bff);
    expect(toHalfBits(70000)).toBe(0x7c00);
    expect(toHalfBits(1 + 2 ** -11)).toBe(0x3c00); // tie to even
    expect(toHalfBits(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(toHalfBits(2 ** -24)).toBe(0x0001);
    expect(fromHalfBits(toHalfBits(Math.SQRT2))).toBeCloseTo(Math.SQRT2, 3);
  });

  it('refuses a file that is not a ggml whisper model', async () => {
    const bad = join(dir, 'bad.bin');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(bad, Buffer.from('GGUF0000'));
    await expect(writeSyntheticModel({ source: bad, destination: join(dir, 'out.bin') })).rejects.toThrow(
      'bad magic',
    );
    await writeFile(bad, model('tiny').source.subarray(0, 1000));
    await expect(writeSyntheticModel({ source: bad, destination: join(dir, 'out.bin') })).rejects.toThrow(
      'truncated',
    );
  });
});
