// A replay of whisper.cpp's greedy decoding (whisper_full_with_state + whisper_process_logits,
// temperature 0) on the written weights. With every block weight zero (asserted in the test) the
// last hidden state is layer_norm(E[last token]), so the logits depend on the last token only.
import { fromHalfBits } from '../../src/synthetic-model.js';
import type { SpecialTokens } from '../../src/synthetic-weights.js';
import { isZero } from './ggml-reader.js';

/** The special tokens the replay uses (its own computation of them, not the writer's), and " ". */
export interface Ids extends Omit<SpecialTokens, 'english' | 'end'> {
  space: number;
}

export function idsFor(nVocab: number): Ids {
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

export class Replay {
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

export function maxOf(values: Float64Array): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) if (v > max) max = v;
  return max;
}

export interface Step {
  id: number;
  p: number;
}

export function decode(
  replay: Replay,
  ids: Ids,
  nVocab: number,
  prompt: number[],
  noTimestamps: boolean,
  seekEnd: number,
  maxSteps = 16,
): Step[] {
  const tokens: Step[] = [];
  let hasTs = false;
  let seekDelta = 3000;
  for (let i = 0; i < maxSteps; i++) {
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
