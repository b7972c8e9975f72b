import type { GuardCounts } from '@live-captions/protocol';

/**
 * The hallucination and loop guards' settings. Defaults are OpenAI's reference `transcribe()`
 * thresholds (no_speech_threshold 0.6, logprob_threshold -1.0, compression_ratio_threshold 2.4).
 */
export interface GuardSettings {
  /** Drop a segment whose no-speech probability is above this while its tokens are unsure... */
  noSpeechThreshold: number;
  /** ...that is, whose average token log-probability is below this. */
  logprobThreshold: number;
  /** A segment whose text compresses better than this (gzip ratio) is a loop. */
  compressionRatioThreshold: number;
  /** Drop known non-speech phrases ("Thank you for watching.") from audio with little speech. */
  phrases: boolean;
  /** "Little speech": the VAD's speech share of the audio is below this (0-1). */
  phraseSpeechRatio: number;
  /** Cut repeated n-grams back to their first occurrence. */
  loops: boolean;
  /** An n-gram of 2+ words repeated this many times in a row is a loop (a single word: twice this). */
  loopRepeats: number;
}

export const DEFAULT_GUARDS: GuardSettings = {
  noSpeechThreshold: 0.6,
  logprobThreshold: -1,
  compressionRatioThreshold: 2.4,
  phrases: true,
  phraseSpeechRatio: 0.5,
  loops: true,
  loopRepeats: 3,
};

/** What the guards removed from one request: counted per guard and path by the gateway. */
export type GuardReport = GuardCounts;

export const emptyReport = (): GuardReport => ({
  nonSpeechSeconds: 0,
  phrasesDropped: 0,
  loopsCut: 0,
  unsureDropped: 0,
});

export function addReports(into: GuardReport, more: GuardReport): GuardReport {
  into.nonSpeechSeconds += more.nonSpeechSeconds;
  into.phrasesDropped += more.phrasesDropped;
  into.loopsCut += more.loopsCut;
  into.unsureDropped += more.unsureDropped;
  return into;
}

/** Whether any guard changed the text (the editor marks such a caption). */
export const trimmed = (report: GuardReport): boolean =>
  report.phrasesDropped + report.loopsCut + report.unsureDropped > 0;
