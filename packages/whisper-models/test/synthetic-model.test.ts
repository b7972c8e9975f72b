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
  type SyntheticVariant,
  syntheticText,
  toHalfBits,
  writeSyntheticModel,
} from '../src/synthetic-model.js';
import { expectedTensors, isZero, readTensors, type Tensor } from './helpers/ggml-reader.js';
import { decode, idsFor, maxOf, Replay } from './helpers/greedy-replay.js';

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

  describe('variants that say what a test needs', () => {
    const replayOf = async (name: 'tiny' | 'tiny.en' | 'base', variant: SyntheticVariant) => {
      const destination = join(dir, `${name}-${variant}.bin`);
      const info = await writeSyntheticModel({ source: forTestsModel(name), destination, variant });
      const file = await readFile(destination);
      const prefix = parseGgmlPrefix(file);
      const tensors = readTensors(file, prefix.length);
      const get = (n: string): Tensor => {
        const t = tensors.find((x) => x.name === n);
        if (!t) throw new Error(n);
        return t;
      };
      const f32 = (t: Tensor): Float32Array =>
        Float32Array.from({ length: t.data.length / 4 }, (_, i) => t.data.readFloatLE(4 * i));
      const nVocab = prefix.hparams.nVocab;
      const replay = new Replay(
        nVocab,
        get('decoder.ln.weight').shape[0] ?? 0,
        get('decoder.token_embedding.weight').data,
        f32(get('decoder.ln.weight')),
        f32(get('decoder.ln.bias')),
      );
      const ids = idsFor(nVocab);
      const prompt = nVocab >= 51865 ? [ids.sot, ids.sot + 1, ids.transcribe] : [ids.sot];
      const say = (seconds: number, steps = 240) => {
        const out = decode(replay, ids, nVocab, prompt, false, Math.round(seconds * 100), steps);
        for (const step of out) expect(step.p).toBeGreaterThan(0.99999);
        const text = out
          .filter((s) => s.id < ids.eot)
          .map((s) => prefix.vocab[s.id]?.toString('utf8') ?? '')
          .join('');
        const marks = out
          .filter((s) => s.id >= ids.eot)
          .map((s) => (s.id === ids.eot ? 'eot' : s.id - ids.beg));
        return { text, marks, tokens: out.filter((s) => s.id < ids.eot).length };
      };
      return { info, say };
    };

    it('hallucination says " Thank you for watching." for any length', async () => {
      const { info, say } = await replayOf('tiny', 'hallucination');
      expect(info.text).toBe(' Thank you for watching.');
      expect(say(3)).toEqual({ text: ' Thank you for watching.', marks: [0, 1500], tokens: 5 });
      expect(say(66).marks).toEqual([0, 1500, 'eot']);
    });

    it('loop repeats " Thank you" until the token limit', async () => {
      const { say } = await replayOf('tiny', 'loop');
      const { text, tokens } = say(3, 220);
      expect(tokens).toBe(219); // <|0.00|> then text until whisper.cpp's n_max of 220
      expect(text.startsWith(' Thank you Thank you Thank you')).toBe(true);
      expect(syntheticText('loop').startsWith(text)).toBe(true);
    });

    it.each(['tiny', 'tiny.en', 'base'] as const)(
      '%s speech says about 2.5 tokens per second of audio, as long as the audio',
      async (name) => {
        const { say } = await replayOf(name, 'speech');
        for (const seconds of [2, 3, 5, 9.5, 20]) {
          const { text, tokens } = say(seconds);
          expect(text).toBe(syntheticText('speech', seconds));
          expect(tokens).toBe(5 * Math.ceil((seconds - 0.1) / 2));
        }
        expect(say(20).marks).toEqual([
          0, 100, 100, 200, 200, 300, 300, 400, 400, 500, 500, 600, 600, 700, 700, 800, 800, 900, 900, 1000,
        ]);
        // over 30 s: the whole passage (75 tokens), <|30.00|>, end-of-text, and whisper.cpp seeks on
        const long = say(66);
        expect(long.tokens).toBe(75);
        expect(long.marks.slice(-2)).toEqual([1500, 'eot']);
        expect(new Set(long.text.split(' ')).size).toBe(long.text.split(' ').length);
      },
    );
  });

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
