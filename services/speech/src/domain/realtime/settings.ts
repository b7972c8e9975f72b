/**
 * The settings of a realtime transcription session, read from OpenAI's GA `session.update`
 * (`session.audio.input.*`) or the beta `transcription_session.update` (`input_audio_*`), and
 * shown back in the shape the client used. Only the fields an update carries change.
 */
import { REALTIME_RATE } from '@live-captions/audio';
import { z } from 'zod';
import { promptTail } from '../request.js';
import type { AudioFormat } from './audio-input.js';

export type Task = 'transcribe' | 'translate';

export interface TurnDetection {
  /** Silero speech probability from which a frame is speech. */
  threshold: number;
  /** Audio kept before the detected start of speech. */
  prefixPaddingMs: number;
  /** A pause this long ends the utterance. */
  silenceDurationMs: number;
}

export interface SessionSettings {
  format: AudioFormat;
  /** Echoed as given: every name selects the loaded model. */
  model: string;
  /** Null: detected per utterance. */
  language: string | null;
  prompt: string;
  /** Our extension: `translate` gives English text (whisper's translate task). */
  task: Task;
  /** Null: manual commits (`turn_detection: null`). */
  turnDetection: TurnDetection | null;
  logprobs: boolean;
}

/** `gpt-4o-transcribe`-style clients get these unless they say otherwise (OpenAI's defaults). */
export const DEFAULT_TURN_DETECTION: TurnDetection = {
  threshold: 0.5,
  prefixPaddingMs: 300,
  silenceDurationMs: 500,
};

export const DEFAULT_SETTINGS: SessionSettings = {
  format: 'pcm16',
  model: 'whisper-1',
  language: null,
  prompt: '',
  task: 'transcribe',
  turnDetection: DEFAULT_TURN_DETECTION,
  logprobs: false,
};

export const LOGPROBS_INCLUDE = 'item.input_audio_transcription.logprobs';

const transcription = z.looseObject({
  model: z.string().min(1).max(200).optional(),
  language: z.string().max(20).nullable().optional(),
  // Any length, as OpenAI takes it; its end is what the decoder reads (promptTail).
  prompt: z.string().nullable().optional(),
  task: z.enum(['transcribe', 'translate']).optional(),
});

const turnDetection = z
  .looseObject({
    type: z.literal('server_vad', { message: 'only server_vad turn detection is supported' }).optional(),
    threshold: z.number().gt(0).lt(1).optional(),
    prefix_padding_ms: z.number().int().min(0).max(5000).optional(),
    silence_duration_ms: z.number().int().min(100).max(10_000).optional(),
  })
  .nullable();

const include = z.array(z.literal(LOGPROBS_INCLUDE)).nullable().optional();

const gaFormat = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('audio/pcm'),
    rate: z.literal(REALTIME_RATE, { message: 'audio/pcm is 24000 Hz' }).optional(),
  }),
  z.looseObject({ type: z.literal('audio/pcmu') }),
  z.looseObject({ type: z.literal('audio/pcma') }),
]);

export const gaSession = z.looseObject({
  type: z.literal('transcription', { message: 'only transcription sessions are served here' }),
  audio: z
    .looseObject({
      input: z
        .looseObject({
          format: gaFormat.optional(),
          transcription: transcription.nullable().optional(),
          turn_detection: turnDetection.optional(),
        })
        .optional(),
    })
    .optional(),
  include,
});

export const betaSession = z.looseObject({
  input_audio_format: z.enum(['pcm16', 'g711_ulaw', 'g711_alaw']).optional(),
  input_audio_transcription: transcription.nullable().optional(),
  turn_detection: turnDetection.optional(),
  include,
});

type TranscriptionUpdate = z.infer<typeof transcription>;
type TurnDetectionUpdate = z.infer<typeof turnDetection>;

function withTranscription(settings: SessionSettings, update: TranscriptionUpdate | null | undefined) {
  if (!update) return settings;
  return {
    ...settings,
    ...(update.model !== undefined ? { model: update.model } : {}),
    ...(update.language !== undefined ? { language: update.language || null } : {}),
    ...(update.prompt !== undefined ? { prompt: promptTail(update.prompt ?? '') } : {}),
    ...(update.task !== undefined ? { task: update.task } : {}),
  };
}

function withTurnDetection(settings: SessionSettings, update: TurnDetectionUpdate | undefined) {
  if (update === undefined) return settings;
  if (update === null) return { ...settings, turnDetection: null };
  const base = settings.turnDetection ?? DEFAULT_TURN_DETECTION;
  return {
    ...settings,
    turnDetection: {
      threshold: update.threshold ?? base.threshold,
      prefixPaddingMs: update.prefix_padding_ms ?? base.prefixPaddingMs,
      silenceDurationMs: update.silence_duration_ms ?? base.silenceDurationMs,
    },
  };
}

const withInclude = (settings: SessionSettings, value: string[] | null | undefined) =>
  value === undefined ? settings : { ...settings, logprobs: (value ?? []).includes(LOGPROBS_INCLUDE) };

const GA_FORMATS: Record<string, AudioFormat> = {
  'audio/pcm': 'pcm16',
  'audio/pcmu': 'pcmu',
  'audio/pcma': 'pcma',
};
const BETA_FORMATS: Record<string, AudioFormat> = { pcm16: 'pcm16', g711_ulaw: 'pcmu', g711_alaw: 'pcma' };

export function applyGaUpdate(
  settings: SessionSettings,
  session: z.infer<typeof gaSession>,
): SessionSettings {
  const input = session.audio?.input;
  let next = settings;
  if (input?.format) next = { ...next, format: GA_FORMATS[input.format.type]! };
  next = withTranscription(next, input?.transcription);
  next = withTurnDetection(next, input?.turn_detection);
  return withInclude(next, session.include);
}

export function applyBetaUpdate(
  settings: SessionSettings,
  session: z.infer<typeof betaSession>,
): SessionSettings {
  let next = settings;
  if (session.input_audio_format) next = { ...next, format: BETA_FORMATS[session.input_audio_format]! };
  next = withTranscription(next, session.input_audio_transcription);
  next = withTurnDetection(next, session.turn_detection);
  return withInclude(next, session.include);
}

const turnDetectionView = (turn: TurnDetection | null) =>
  turn && {
    type: 'server_vad',
    threshold: turn.threshold,
    prefix_padding_ms: turn.prefixPaddingMs,
    silence_duration_ms: turn.silenceDurationMs,
  };

const transcriptionView = (settings: SessionSettings) => ({
  model: settings.model,
  language: settings.language,
  prompt: settings.prompt,
  task: settings.task,
});

/** The effective settings, shaped as the client's flavour of the protocol shapes them. */
export function sessionView(id: string, settings: SessionSettings, beta: boolean) {
  const include = settings.logprobs ? [LOGPROBS_INCLUDE] : null;
  if (beta) {
    const format = Object.entries(BETA_FORMATS).find(([, value]) => value === settings.format)![0];
    return {
      id,
      object: 'realtime.transcription_session',
      input_audio_format: format,
      input_audio_transcription: transcriptionView(settings),
      turn_detection: turnDetectionView(settings.turnDetection),
      input_audio_noise_reduction: null,
      include,
    };
  }
  const format =
    settings.format === 'pcm16'
      ? { type: 'audio/pcm', rate: REALTIME_RATE }
      : { type: settings.format === 'pcmu' ? 'audio/pcmu' : 'audio/pcma' };
  return {
    id,
    object: 'realtime.transcription_session',
    type: 'transcription',
    audio: {
      input: {
        format,
        transcription: transcriptionView(settings),
        turn_detection: turnDetectionView(settings.turnDetection),
        noise_reduction: null,
      },
    },
    include,
  };
}
