// What each synthetic model says, whatever the audio, as a decoding plan for synthetic-weights.ts:
// which tokens share a row, which pairs are linked and how strongly, and each token's logit right
// after itself. The decoder's state is the last token alone, so a script is a chain of tokens in
// which each token decides the next; whisper.cpp's logit filters (timestamp pairs, increasing
// timestamps, "end of audio reached") are what let the same token act differently.
//
// Links are symmetric (the token embedding is tied), so along a chain each link is one unit
// stronger than the one before it: right after a token its forward link beats its backward one.
import type { GgmlPrefix } from './ggml-header.js';
import type { DecoderPlan, PlanNode, SpecialTokens } from './synthetic-weights.js';

export type SyntheticVariant = 'test' | 'hallucination' | 'loop' | 'speech';

/** Seconds of audio per block of the speech script (one timestamp pair per block). */
export const SPEECH_BLOCK_SECONDS = 2;

// 15 blocks of 5 distinct tokens, one block per 2 s: 2.5 tokens per second of audio, and no token
// twice (the state is the last token, so a repeated token would repeat what follows it).
const SPEECH_BLOCKS: string[][] = [
  ' Good| morning| everyone| and| welcome',
  ' to| our| weekly| meeting| about',
  ' the| new| budget| plan|.',
  ' Today| we| will| look| at',
  ' three| questions| first| how| much',
  ' money| goes| into| public| transport',
  ' second| which| schools| need| repairs',
  ' this| year| third| what| residents',
  ' told| us| during| last| spring',
  ' survey| Please| keep| your| comments',
  ' short| so| that| every| speaker',
  ' gets| a| fair| chance| thank',
  ' you| all| for| coming| tonight',
  ' Let| me| start| with| some',
  ' numbers| from| my| finance| team',
].map((block) => block.split('|'));

type Script =
  | { kind: 'once'; tokens: string[] }
  | { kind: 'loop'; tokens: [string, string] }
  | { kind: 'blocks'; blocks: string[][]; blockSeconds: number };

const SCRIPTS: Record<SyntheticVariant, Script> = {
  // the original test model: " test" for any audio
  test: { kind: 'once', tokens: [' test'] },
  // Whisper's best-known hallucination on silence and noise
  hallucination: { kind: 'once', tokens: [' Thank', ' you', ' for', ' watching', '.'] },
  // a phrase repeated until the decoder's token limit (n_text_ctx / 2 - 4 tokens)
  loop: { kind: 'loop', tokens: [' Thank', ' you'] },
  // a realistic sentence whose length follows the audio: about 2.5 tokens per second
  speech: { kind: 'blocks', blocks: SPEECH_BLOCKS, blockSeconds: SPEECH_BLOCK_SECONDS },
};

export const SYNTHETIC_VARIANTS = Object.keys(SCRIPTS) as SyntheticVariant[];

/**
 * The text a variant's model says for `seconds` of audio (up to 30 s, timestamps on, as the
 * addon decodes): the speech model stops at the first block boundary at or past the end of the
 * audio less 0.1 s (whisper.cpp's "end of audio reached"); the loop model repeats its phrase until
 * the token limit.
 */
export function syntheticText(variant: SyntheticVariant, seconds = 30): string {
  const script = SCRIPTS[variant];
  if (script.kind === 'once') return script.tokens.join('');
  if (script.kind === 'loop') return script.tokens.join('').repeat(LOOP_TOKEN_LIMIT / 2);
  const blocks = Math.min(
    script.blocks.length,
    Math.max(1, Math.ceil((Math.round(seconds * 100) - 10) / (script.blockSeconds * 100))),
  );
  return script.blocks
    .slice(0, blocks)
    .map((b) => b.join(''))
    .join('');
}

/** whisper.cpp's n_max: text tokens one decode may produce (n_text_ctx / 2 - 4). */
export const LOOP_TOKEN_LIMIT = 220;

export function tokenId(prefix: GgmlPrefix, text: string): number {
  // whisper.cpp maps strings to ids with a std::map, so a duplicated string means its last id
  const wanted = Buffer.from(text, 'utf8');
  let id = -1;
  prefix.vocab.forEach((token, i) => {
    if (token.equals(wanted)) id = i;
  });
  if (id < 0) throw new Error(`the vocabulary has no ${JSON.stringify(text)} token`);
  return id;
}

/** The decoding plan of `variant` on the model whose vocabulary and special tokens are given. */
export function scriptPlan(
  variant: SyntheticVariant,
  prefix: GgmlPrefix,
  tokens: SpecialTokens,
): DecoderPlan {
  const script = SCRIPTS[variant];
  const nodes = new Map<string, PlanNode>([
    ['prompt', [tokens.sot, tokens.translate, tokens.transcribe, tokens.not]],
    ['begin', [tokens.beg]],
    ['eot', [tokens.eot]],
  ]);
  if (tokens.english !== null) nodes.set('english', [tokens.english]);
  const links: Array<[string, string, number]> = [];
  // Wanted logit of a token right after itself (units): the prompt tokens stay far below <|en|>
  // after <|startoftext|> (whisper.cpp's language detection also reads id sot+100, "yue", which
  // is <|translate|> on 99-language models); text never repeats itself.
  const self = new Map<string, number>([['prompt', -1]]);
  // Constant logits (not units): <|en|> wins language detection; after any token outside the
  // script (a beam that strayed) end-of-text beats the zero logits of everything else.
  const prior = new Map<string, number>([
    ['english', 10],
    ['eot', 10],
  ]);
  const word = (text: string): string => {
    const name = `w:${text}`;
    if (nodes.has(name)) throw new Error(`${JSON.stringify(text)} twice in a synthetic script`);
    nodes.set(name, [tokenId(prefix, text)]);
    self.set(name, -1);
    return name;
  };
  const words = (script.kind === 'blocks' ? script.blocks.flat() : script.tokens).map(word);
  const first = words[0] ?? '';
  // first token with timestamps: <|0.00|> beats the text; without timestamps (masked): the text;
  // after <|0.00|>: the text (timestamps are masked by the pair rule)
  links.push(['prompt', 'begin', 2], ['prompt', first, 1], ['begin', first, 1]);

  if (script.kind === 'loop') {
    const [a = '', b = ''] = words;
    links.push([a, b, 2]); // a <-> b forever: nothing else is linked to b
    return { nodes, links, self, prior };
  }
  const end = tokens.beg + prefix.hparams.nAudioCtx; // <|30.00|>
  const blocks = script.kind === 'blocks' ? script.blocks.map((b) => b.length) : [words.length];
  const step = script.kind === 'blocks' ? (script.blockSeconds * prefix.hparams.nAudioCtx) / 30 : 0;
  let s = 1;
  let at = 0;
  blocks.forEach((length, k) => {
    const block = words.slice(at, at + length);
    at += length;
    for (let i = 0; i + 1 < block.length; i++) links.push([block[i] ?? '', block[i + 1] ?? '', ++s]);
    const last = block[block.length - 1] ?? '';
    const final = k === blocks.length - 1;
    const close = final ? 'end' : `ts:${k + 1}`;
    nodes.set(close, [final ? end : tokens.beg + (k + 1) * step]);
    // after the block's last token: its closing timestamp beats end-of-text (which wins when
    // timestamps are off), which beats the backward link
    links.push([last, close, s + 2], [last, 'eot', s + 1]);
    s += 2;
    if (final) {
      // after <|30.00|>: end-of-text (only it and <|30.00|> are allowed)
      links.push([close, 'eot', script.kind === 'once' ? 1 : s + 1]);
      self.set(close, 0);
    } else {
      // a closing timestamp repeats itself once (the pair: text is masked after a lone
      // timestamp), then opens the next block (timestamps are masked after a pair)
      links.push([close, words[at] ?? '', ++s]);
      self.set(close, 1);
    }
  });
  return { nodes, links, self, prior };
}
