import type { NativeDecodeResult } from './native-types.js';

export interface Token {
  id: number;
  /** Text of the token. A character split across tokens is attached to the token that completes it. */
  text: string;
  /** Start and end in seconds from the start of the clip. */
  t0: number;
  t1: number;
  probability: number;
  /** Natural log of the token's probability, as whisper.cpp computed it. */
  logprob: number;
}

export interface Segment {
  text: string;
  t0: number;
  t1: number;
  noSpeechProbability: number;
  tokens: Token[];
}

export interface Transcription {
  /** Language decoded in (given, or detected for `auto`). */
  language: string;
  /** Probability of the detected language; null when the language was given. */
  languageProbability: number | null;
  text: string;
  segments: Segment[];
  /** Wall time of the native decode in milliseconds. */
  decodeMs: number;
}

export function toTranscription(native: NativeDecodeResult): Transcription {
  const segments = native.segments.map((segment) => {
    // Tokens are byte sequences: decode them as one stream so multi-byte characters (CJK, emoji)
    // split across tokens come out whole.
    const decoder = new TextDecoder('utf-8');
    const tokens = segment.tokens.map((token, index) => ({
      id: token.id,
      text: decoder.decode(token.bytes, { stream: index < segment.tokens.length - 1 }),
      t0: token.t0,
      t1: token.t1,
      probability: token.p,
      logprob: token.plog,
    }));
    return {
      text: segment.text,
      t0: segment.t0,
      t1: segment.t1,
      noSpeechProbability: segment.noSpeechProbability,
      tokens,
    };
  });
  return {
    language: native.language,
    languageProbability: native.languageProbability,
    text: segments.map((segment) => segment.text).join(''),
    segments,
    decodeMs: native.wallMs,
  };
}
