/**
 * Validation of decode requests in the contract's order (speech-contract.md, "Messages and
 * statuses of the native route"), shared by the native route and `/v1`.
 */
import { createHash } from 'node:crypto';
import {
  checkLanguageAndMode as languageModeRule,
  MAX_PROMPT_CHARS,
  MIN_UNFINISHED_SECONDS,
  SAMPLE_RATE,
} from '@live-captions/audio';
import { type EngineInfo, type InferenceRequest, RELAY_ROOM_NAME } from '@live-captions/protocol';
import { HttpError, Messages } from './errors.js';

export const LEGACY_STREAM = 'legacy';
const ID_PATTERN = /^[A-Za-z0-9_-]{8,80}$/;
/** Plain decimal numbers only: no hex, no blanks, no sign other than +. */
const DECIMAL = /^\+?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Derived from the queued request so the two cannot drift; the IDs and the stream's previous text
 * are added when it is queued.
 */
export type DecodeOptions = Omit<
  InferenceRequest,
  'requestId' | 'streamId' | 'correlationId' | 'previousText'
>;

type QueryValue = string | string[] | undefined | unknown;

const flag = (value: QueryValue, fallback: boolean) => (value === undefined ? fallback : value === '1');

/** Steps 3-5: language code, mode, and what an English-only model can do (the shared rule). */
export function checkLanguageAndMode(language: unknown, mode: unknown, engine: EngineInfo) {
  const check = languageModeRule(language, mode, engine);
  if (!check.ok) throw new HttpError(400, check.message, { param: check.param });
  return { language: check.language, mode: check.mode };
}

/**
 * The end of a prompt that OpenAI's APIs accept at any length (`/v1`, realtime sessions): as the
 * hosted whisper does ("only the final 224 tokens of the prompt"), the start is let go rather
 * than the request refused, so a client written for OpenAI keeps working.
 */
export function promptTail(prompt: string): string {
  const chars = [...prompt];
  return chars.length > MAX_PROMPT_CHARS ? chars.slice(-MAX_PROMPT_CHARS).join('') : prompt;
}

/**
 * The native route's prompt (our extension, so nothing written for OpenAI sends it): at most
 * MAX_PROMPT_CHARS, "" when none. A repeated query parameter arrives as a list and is refused.
 */
export function checkPrompt(prompt: unknown): string {
  if (prompt === undefined) return '';
  if (typeof prompt !== 'string' || prompt.length > MAX_PROMPT_CHARS) {
    throw new HttpError(400, Messages.prompt, { param: 'prompt' });
  }
  return prompt;
}

/** Steps 3-6 of the native route, from its query string (the prompt is our extension). */
export function parseNativeQuery(query: Record<string, QueryValue>, engine: EngineInfo): DecodeOptions {
  const { language, mode } = checkLanguageAndMode(query.language ?? 'en', query.mode ?? 'transcribe', engine);
  const rawContext = query.context_seconds;
  let contextSeconds = 0;
  if (rawContext !== undefined) {
    contextSeconds =
      typeof rawContext === 'string' && DECIMAL.test(rawContext) ? Number(rawContext) : Number.NaN;
    if (!Number.isFinite(contextSeconds) || contextSeconds < 0 || contextSeconds > 1) {
      throw new HttpError(400, Messages.context, { param: 'context_seconds' });
    }
  }
  const prompt = checkPrompt(query.prompt);
  return {
    language,
    mode,
    window: flag(query.window, false),
    final: flag(query.final, true),
    contextSeconds,
    ...(prompt ? { prompt } : {}),
  };
}

export interface RequestIds {
  /** Empty string when the client sent none (not cached). */
  requestId: string;
  /** Undefined when the client sent none. */
  streamId: string | undefined;
}

/** Step 7: request ID, then stream ID. */
export function parseIds(requestId: string | undefined, streamId: string | undefined): RequestIds {
  if (requestId !== undefined && !ID_PATTERN.test(requestId)) {
    throw new HttpError(400, Messages.requestId, { param: 'X-Request-ID' });
  }
  if (streamId !== undefined && !ID_PATTERN.test(streamId)) {
    throw new HttpError(400, Messages.streamId, { param: 'X-Stream-ID' });
  }
  return { requestId: requestId ?? '', streamId };
}

/**
 * `X-Caption-Room`: the caption room a live stream captions (the capture page and the stream
 * sources send their source room). Windows are admitted to the decode slots round robin across
 * rooms; the header grants nothing. Absent: the stream is its own group.
 */
export function parseRoom(room: string | undefined): string | undefined {
  if (room === undefined || room === '') return undefined;
  if (!RELAY_ROOM_NAME.test(room)) throw new HttpError(400, Messages.room, { param: 'X-Caption-Room' });
  return room;
}

/** Step 11: the window must hold new audio; unfinished windows need two seconds of it. */
export function checkWindow(options: DecodeOptions, samples: number): void {
  const duration = samples / SAMPLE_RATE;
  const fresh = duration - options.contextSeconds;
  if (fresh <= 0 || (options.window && !options.final && fresh < MIN_UNFINISHED_SECONDS)) {
    throw new HttpError(400, Messages.window);
  }
}

/**
 * Step 12: sha256 over the body and every option that changes the result. `route` keeps a
 * native request and a `/v1` request with the same ID apart; `extra` carries route-specific
 * options such as the `/v1` response format.
 */
export function requestSignature(route: string, body: Buffer, options: DecodeOptions, extra = ''): string {
  return createHash('sha256')
    .update(body)
    .update(
      JSON.stringify([
        route,
        options.language,
        options.mode,
        options.window,
        options.final,
        options.contextSeconds,
        options.prompt ?? '',
        extra,
      ]),
    )
    .digest('hex');
}
