/**
 * Rolling-window word cut. A live client sends [context | new audio]; an unfinished window keeps
 * its last second open, because words still being spoken at the edge come out wrong. Only words
 * that end before the cutoff and whose midpoint lies after the context are emitted; the client
 * resends the rest with its next window.
 */
import { UNFINISHED_TAIL_SECONDS } from '@live-captions/audio';

export interface TimedToken {
  text: string;
  /** Seconds from the start of the window. */
  t0: number;
  t1: number;
}

export interface Word {
  text: string;
  t0: number;
  t1: number;
}

export interface CutInput {
  tokens: readonly TimedToken[];
  /** Window length in seconds. */
  duration: number;
  /** Seconds of previously committed audio at the start of the window. */
  context: number;
  /** `false` for an unfinished rolling window (keeps the last second open). */
  final: boolean;
}

export interface CutResult {
  /** Emitted words joined, trimmed. */
  text: string;
  words: Word[];
  /** End of the committed audio in seconds, within [context, duration]. */
  committedSeconds: number;
  cutoff: number;
}

export function cutoffFor(duration: number, context: number, final: boolean): number {
  return final ? duration : Math.max(context, duration - UNFINISHED_TAIL_SECONDS);
}

/** Groups tokens into words: a token that starts with whitespace begins a new word. */
export function groupWords(tokens: readonly TimedToken[]): Word[] {
  const words: Word[] = [];
  for (const token of tokens) {
    if (token.text === '') continue;
    const last = words.at(-1);
    if (last === undefined || /^\s/.test(token.text)) {
      words.push({ text: token.text, t0: token.t0, t1: token.t1 });
    } else {
      last.text += token.text;
      last.t1 = Math.max(last.t1, token.t1);
    }
  }
  return words;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export function cutWords({ tokens, duration, context, final }: CutInput): CutResult {
  const cutoff = cutoffFor(duration, context, final);
  const words = groupWords(tokens).filter((word) => {
    const midpoint = (word.t0 + word.t1) / 2;
    // A final window commits everything, including words whisper timed a little past the end.
    return midpoint > context && (final || word.t1 <= cutoff);
  });
  const last = words.at(-1);
  const committedSeconds = final ? duration : clamp(last ? last.t1 : cutoff, context, duration);
  return {
    text: words
      .map((word) => word.text)
      .join('')
      .trim(),
    words,
    committedSeconds: round3(committedSeconds),
    cutoff,
  };
}

export const round3 = (value: number) => Math.round(value * 1000) / 1000;
