/**
 * The guards every decode path passes through after whisper.cpp: segments whisper.cpp itself
 * finds unsure (no-speech probability and average log-probability, OpenAI's rule), known
 * non-speech phrases from audio with little speech, and repetition loops. Pure: the caller brings
 * the VAD's speech ratio and the text committed just before.
 */
import { compressionRatio, cutLoops, sameWords } from './loops.js';
import { isKnownPhrase } from './phrases.js';
import { emptyReport, type GuardReport, type GuardSettings } from './settings.js';

export interface GuardToken {
  text: string;
  logprob: number;
}

export interface GuardSegment<T extends GuardToken> {
  text: string;
  noSpeechProbability: number;
  tokens: T[];
}

export interface GuardContext {
  settings: GuardSettings;
  language: string | null;
  /** Speech share of the audio (0-1) by the VAD; undefined without a VAD. */
  speechRatio: number | undefined;
  /** Text committed just before this audio (offline: the previous region's), if known. */
  previous?: string;
}

/** A segment repeating what was just committed is a loop when it has at least this many words. */
const REPEAT_MIN_WORDS = 4;

/** `text` says again what was committed just before (of at least REPEAT_MIN_WORDS words). */
const repeats = (text: string, previous: string): boolean =>
  previous.trim().split(/\s+/).length >= REPEAT_MIN_WORDS && sameWords(text, previous);

const average = (values: number[]): number =>
  values.length === 0 ? 0 : values.reduce((a, v) => a + v, 0) / values.length;

/** The segments the guards let through (loops cut), and what they removed. */
export function guardSegments<T extends GuardToken, S extends GuardSegment<T>>(
  segments: readonly S[],
  context: GuardContext,
): { segments: S[]; report: GuardReport } {
  const { settings } = context;
  const report = emptyReport();
  const out: S[] = [];
  let previous = context.previous ?? '';
  for (const segment of segments) {
    if (segment.text.trim() === '') continue;
    const unsure =
      segment.noSpeechProbability > settings.noSpeechThreshold &&
      average(segment.tokens.map((t) => t.logprob)) < settings.logprobThreshold;
    if (unsure) {
      report.unsureDropped++;
      continue;
    }
    let kept: S = segment;
    if (settings.loops) {
      const { tokens, cuts } = cutLoops(segment.tokens, settings.loopRepeats);
      if (cuts > 0) kept = { ...segment, tokens, text: tokens.map((t) => t.text).join('') };
      if (repeats(kept.text, previous) || compressionRatio(kept.text) > settings.compressionRatioThreshold) {
        report.loopsCut++;
        continue;
      }
      report.loopsCut += cuts;
    }
    const littleSpeech =
      context.speechRatio === undefined || context.speechRatio < settings.phraseSpeechRatio;
    if (settings.phrases && littleSpeech && isKnownPhrase(kept.text, context.language)) {
      report.phrasesDropped++;
      continue;
    }
    out.push(kept);
    previous = kept.text;
  }
  // Whisper repeating what was committed before can spread it over several segments (a realtime
  // turn, a `/v1` region): the decode as a whole is then the loop.
  if (settings.loops && out.length > 1 && repeats(out.map((s) => s.text).join(''), context.previous ?? '')) {
    report.loopsCut++;
    return { segments: [], report };
  }
  return { segments: out, report };
}
