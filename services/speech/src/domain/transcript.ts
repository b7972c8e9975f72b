/**
 * The `/v1` answer formats of an offline decode, shaped as OpenAI's audio API shapes them
 * (checked against the pinned `openai` SDK's types): `json`, `text`, `srt`, `vtt`,
 * `verbose_json`, and the `transcript.text.*` stream events.
 */
import { deflateSync } from 'node:zlib';
import { groupWords } from '@live-captions/inference';
import {
  type InferenceResult,
  isWhisperLanguage,
  type ResultSegment,
  type ResultToken,
  WHISPER_LANGUAGE_NAMES,
} from '@live-captions/protocol';

export const RESPONSE_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
export const GRANULARITIES = ['word', 'segment'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export interface Usage {
  type: 'duration';
  /** Whole seconds of input audio, rounded up (what OpenAI bills and reports). */
  seconds: number;
}

export interface Logprob {
  token: string;
  bytes: number[];
  logprob: number;
}

export interface VerboseSegment {
  id: number;
  seek: number;
  start: number;
  end: number;
  text: string;
  tokens: number[];
  temperature: number;
  avg_logprob: number;
  compression_ratio: number;
  no_speech_prob: number;
}

export interface VerboseWord {
  word: string;
  start: number;
  end: number;
}

export interface VerboseTranscript {
  task: 'transcribe' | 'translate';
  language: string;
  duration: number;
  text: string;
  segments?: VerboseSegment[];
  words?: VerboseWord[];
  usage: Usage;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export const usage = (result: Pick<InferenceResult, 'audioSeconds'>): Usage => ({
  type: 'duration',
  seconds: Math.ceil(result.audioSeconds),
});

/** The full English name OpenAI reports (`english`); "" when no language was detected (no speech). */
export function languageName(code: string | null): string {
  return code !== null && isWhisperLanguage(code) ? WHISPER_LANGUAGE_NAMES[code] : '';
}

/** UTF-8 bytes over zlib-compressed bytes, as OpenAI Whisper computes it (> 2.4: repetitive text). */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return 0;
  return bytes.length / deflateSync(bytes).length;
}

/**
 * Segments in clip order with times made monotonic (a segment never starts before the previous
 * one ends) and inside [0, duration].
 */
export function orderedSegments(segments: readonly ResultSegment[], duration: number): ResultSegment[] {
  let floor = 0;
  return segments.map((segment) => {
    const start = clamp(Math.max(segment.start, floor), 0, duration);
    const end = clamp(Math.max(segment.end, start), start, duration);
    floor = end;
    return { ...segment, start: round3(start), end: round3(end) };
  });
}

export function verboseSegments(segments: readonly ResultSegment[]): VerboseSegment[] {
  return segments.map((segment, id) => ({
    id,
    // Clips are at most 12 s: every segment comes from the first 30 s window.
    seek: 0,
    start: segment.start,
    end: segment.end,
    text: segment.text,
    tokens: segment.tokens.map((token) => token.id),
    temperature: segment.temperature,
    avg_logprob:
      segment.tokens.length === 0
        ? 0
        : segment.tokens.reduce((sum, token) => sum + token.logprob, 0) / segment.tokens.length,
    compression_ratio: compressionRatio(segment.text.trim()),
    no_speech_prob: segment.noSpeechProbability,
  }));
}

/** Leading and trailing punctuation is not part of a word's text (OpenAI's words carry none). */
const EDGE_PUNCTUATION = /^[\p{P}\s]+|[\p{P}\s]+$/gu;

/**
 * Words from the segments' timed tokens (a token that starts with a space begins a word), kept
 * inside their segment, monotonic (each starts where the previous ended at the earliest).
 */
export function segmentWords(segments: readonly ResultSegment[]): VerboseWord[] {
  const words: VerboseWord[] = [];
  let floor = 0;
  for (const segment of segments) {
    const timed = segment.tokens.map((token) => ({ text: token.text, t0: token.start, t1: token.end }));
    for (const word of groupWords(timed)) {
      const text = word.text.replace(EDGE_PUNCTUATION, '');
      if (text === '') continue;
      const start = clamp(Math.max(word.t0, floor), segment.start, segment.end);
      const end = clamp(Math.max(word.t1, start), start, segment.end);
      floor = end;
      words.push({ word: text, start: round3(start), end: round3(end) });
    }
  }
  return words;
}

export function verboseJson(
  result: InferenceResult,
  task: 'transcribe' | 'translate',
  granularities: readonly Granularity[],
): VerboseTranscript {
  const segments = orderedSegments(result.segments ?? [], result.audioSeconds);
  // OpenAI's default granularity is `segment`; asking for words alone leaves segments out.
  const wantSegments = granularities.length === 0 || granularities.includes('segment');
  return {
    task,
    language: languageName(result.language),
    duration: result.audioSeconds,
    text: result.text,
    ...(wantSegments ? { segments: verboseSegments(segments) } : {}),
    ...(granularities.includes('word') ? { words: segmentWords(segments) } : {}),
    usage: usage(result),
  };
}

function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

/** SubRip: numbered cues, `HH:MM:SS,mmm`. */
export function srt(result: InferenceResult): string {
  return orderedSegments(result.segments ?? [], result.audioSeconds)
    .map(
      (segment, i) =>
        `${i + 1}\n${timestamp(segment.start, ',')} --> ${timestamp(segment.end, ',')}\n${segment.text.trim()}\n\n`,
    )
    .join('');
}

/** WebVTT: the header, then one cue per segment, `HH:MM:SS.mmm`. */
export function vtt(result: InferenceResult): string {
  const cues = orderedSegments(result.segments ?? [], result.audioSeconds).map(
    (segment) =>
      `${timestamp(segment.start, '.')} --> ${timestamp(segment.end, '.')}\n${segment.text.trim()}\n\n`,
  );
  return `WEBVTT\n\n${cues.join('')}`;
}

export function logprobs(tokens: readonly ResultToken[]): Logprob[] {
  return tokens.map((token) => ({
    token: token.text,
    bytes: [...Buffer.from(token.text, 'utf8')],
    logprob: token.logprob,
  }));
}

const allTokens = (segments: readonly ResultSegment[]) => segments.flatMap((segment) => segment.tokens);

/** `json`: the text and usage; with `include[]=logprobs` every token's log probability. */
export function jsonTranscript(result: InferenceResult, withLogprobs: boolean) {
  return {
    text: result.text,
    ...(withLogprobs ? { logprobs: logprobs(allTokens(result.segments ?? [])) } : {}),
    usage: usage(result),
  };
}

/**
 * The text a segment adds to the stream: its own text, except that the first one loses its
 * leading space, so the deltas add up to the final text.
 */
export function deltaText(segment: ResultSegment, index: number): string {
  return index === 0 ? segment.text.trimStart() : segment.text;
}

/** One server-sent event as OpenAI sends it: a `data:` line of JSON. */
export const sse = (event: object) => `data: ${JSON.stringify(event)}\n\n`;

export function deltaEvent(segment: ResultSegment, index: number, withLogprobs: boolean): string {
  return sse({
    type: 'transcript.text.delta',
    delta: deltaText(segment, index),
    ...(withLogprobs ? { logprobs: logprobs(segment.tokens) } : {}),
  });
}

export function doneEvent(result: InferenceResult, withLogprobs: boolean): string {
  return sse({
    type: 'transcript.text.done',
    text: result.text,
    ...(withLogprobs ? { logprobs: logprobs(allTokens(result.segments ?? [])) } : {}),
    usage: usage(result),
  });
}

/** The whole stream of a finished decode: what a retry with the same request ID replays. */
export function streamBody(result: InferenceResult, withLogprobs: boolean): string {
  const deltas = (result.segments ?? []).map((segment, i) => deltaEvent(segment, i, withLogprobs));
  return deltas.join('') + doneEvent(result, withLogprobs);
}
