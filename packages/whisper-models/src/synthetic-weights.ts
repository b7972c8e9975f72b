// The non-zero weights of a synthetic model: the token embedding rows and the decoder's final
// layer norm that make whisper.cpp's greedy decoding follow a plan (synthetic-scripts.ts) for any
// audio. Explained here on the simplest plan, " test" once.
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
import { type GgmlPrefix, isMultilingual, type WhisperHparams } from './ggml-header.js';
import { roundHalf } from './half-float.js';

/** What greedy decoding of the plain synthetic model (`test`) prints, whatever the audio. */
export const SYNTHETIC_TEXT = ' test';
/** What language detection returns on a multilingual synthetic model. */
export const SYNTHETIC_LANGUAGE = 'en';

const UNIT_LOGITS = 25;

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
  /** The closing timestamp: <|30.00|> on standard models. */
  end: number;
}

export function specialTokens(prefix: GgmlPrefix): SpecialTokens {
  const { hparams } = prefix;
  const multilingual = isMultilingual(hparams);
  const numLanguages = hparams.nVocab - 51765 - (multilingual ? 1 : 0);
  const shift = multilingual ? numLanguages - 98 : 0;
  const sot = 50257 + (multilingual ? 1 : 0);
  const beg = 50363 + shift;
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
    // timestamps step 30 s / n_audio_ctx, so this is <|30.00|>
    end: beg + hparams.nAudioCtx,
  };
}

/** Row values of the token embedding (f32 before the f16 cast) and the final layer norm. */
export interface DecoderWeights {
  rows: Map<number, Float32Array>;
  lnWeight: Float32Array;
  lnBias: Float32Array;
}

/** Token ids that share one embedding row (the prompt tokens all lead to the same next token). */
export type PlanNode = number[];

/** What the weights must do, written by synthetic-scripts.ts. Nodes are named; see below. */
export interface DecoderPlan {
  nodes: Map<string, PlanNode>;
  /** [u, v, m]: right after u, v's logit rises by m units (and after v, u's). */
  links: Array<[string, string, number]>;
  /** Wanted logit of a node right after itself, in units. */
  self: Map<string, number>;
  /** Constant logits (not units) added after every token. */
  prior: Map<string, number>;
}

export function decoderWeights(h: WhisperHparams, plan: DecoderPlan): DecoderWeights {
  const d = h.nTextState;
  const roles = [...plan.nodes.keys()];
  const coords = new Map<string, Map<number, number>>(roles.map((r) => [r, new Map()]));
  const set = (role: string, c: number, x: number): void => {
    const row = coords.get(role);
    if (!row) throw new Error(`synthetic plan: unknown node ${role}`);
    row.set(c, x);
  };
  const gain = new Map<number, number>();
  const own = new Map<string, number>();
  const constant = 0; // gain 0, bias 1
  let next = constant + 1;
  for (const [u, v, m] of plan.links) {
    const c = next++;
    set(u, c, Math.sqrt(m));
    set(v, c, Math.sqrt(m));
    gain.set(c, 1);
    own.set(u, (own.get(u) ?? 0) + m);
    own.set(v, (own.get(v) ?? 0) + m);
  }
  for (const [role, wanted] of plan.self) {
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
  for (const [role, logit] of plan.prior) if (coords.has(role)) set(role, constant, logit);

  const lnWeight = new Float32Array(d);
  const lnBias = new Float32Array(d);
  for (const [c, g] of gain) lnWeight[c] = g * scale;
  lnBias[constant] = 1;

  // Coordinates from `next` on have gain 0 and bias 0: spreading minus the row's sum over them
  // gives the row zero mean, so ggml_norm only rescales it, and changes no logit.
  const row = (role: string): Float32Array => {
    const r = new Float32Array(d);
    let sum = 0;
    for (const [c, x] of coords.get(role) ?? []) {
      r[c] = roundHalf(x);
      sum += r[c] ?? 0;
    }
    r.fill(roundHalf(-sum / (d - next)), next);
    return r;
  };
  const rows = new Map<number, Float32Array>();
  for (const [role, ids] of plan.nodes) {
    const values = row(role);
    for (const id of ids) {
      if (rows.has(id)) throw new Error(`synthetic plan: token ${id} in two nodes`);
      rows.set(id, values);
    }
  }
  return { rows, lnWeight, lnBias };
}
