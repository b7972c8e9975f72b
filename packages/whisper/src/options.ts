import { WhisperError } from './errors.js';
import type { NativeDecodeOptions } from './native-types.js';

/** Options of one decode. Defaults suit live captions: greedy, temperature 0 without fallback. */
export interface DecodeOptions {
  /** A Whisper language code or `auto` (detection; the result carries its probability). Default `en`. */
  language?: string;
  /** `translate` decodes straight to English. Default `transcribe`. */
  task?: 'transcribe' | 'translate';
  /** 1 = greedy (default); 2-8 = beam search. */
  beamSize?: number;
  /** CPU threads for this decode (default 1). */
  threads?: number;
  /** One segment for the whole clip (default true): what rolling windows want. */
  singleSegment?: boolean;
  /** Per-token start/end times (default true): needed to cut words at a time boundary. */
  tokenTimestamps?: boolean;
  /** Text that primes the decoder (names, jargon). */
  initialPrompt?: string;
  /** Upper bound on text tokens per segment; 0 = none (default). */
  maxTokens?: number;
  /**
   * Encoder context in frames (50 per second, at most the model's 1500). `'clip'` (default) sizes
   * it to the clip, the main speed lever for short live windows; 0 = the full 30 s.
   */
  audioContext?: number | 'clip';
  /** Suppress non-speech tokens (music notes, brackets) - default true. */
  suppressNonSpeech?: boolean;
  /** Segments whose no-speech probability exceeds this are dropped by whisper.cpp (default 0.6). */
  noSpeechThreshold?: number;
  /** Sampling temperature, 0-1 (default 0). */
  temperature?: number;
  /**
   * whisper.cpp's temperature fallback (default false): a segment that fails the entropy or
   * log-probability check is decoded again 0.2 hotter, up to 1. Costs time only when it triggers.
   */
  temperatureFallback?: boolean;
}

/** whisper.cpp's default fallback step (`temperature_inc`), also OpenAI Whisper's. */
export const TEMPERATURE_INCREMENT = 0.2;

export const SAMPLE_RATE = 16_000;
/** Encoder frames per second of audio: 1500 frames cover whisper's 30 s window. */
const FRAMES_PER_SECOND = 50;

/**
 * Encoder context for a clip: its frames plus a small margin, rounded up to a multiple of 32 so
 * similar clip lengths share ggml graph shapes.
 */
export function audioContextForClip(samples: number, modelAudioContext: number): number {
  const frames = Math.ceil((samples / SAMPLE_RATE) * FRAMES_PER_SECOND) + 16;
  return Math.min(modelAudioContext, Math.max(64, Math.ceil(frames / 32) * 32));
}

function integer(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new WhisperError(
      'WHISPER_INVALID_OPTION',
      `${name} must be an integer from ${min} to ${max}, got ${value}`,
    );
  }
  return value;
}

export function resolveDecodeOptions(
  options: DecodeOptions,
  context: {
    samples: number;
    modelAudioContext: number;
    languages: ReadonlySet<string>;
    multilingual: boolean;
  },
): NativeDecodeOptions {
  const language = options.language ?? 'en';
  if (language !== 'auto' && !context.languages.has(language)) {
    throw new WhisperError('WHISPER_INVALID_OPTION', `unknown language code "${language}"`);
  }
  if (!context.multilingual && language !== 'en' && language !== 'auto') {
    throw new WhisperError('WHISPER_INVALID_OPTION', 'this model is English-only');
  }
  const task = options.task ?? 'transcribe';
  if (task !== 'transcribe' && task !== 'translate') {
    throw new WhisperError(
      'WHISPER_INVALID_OPTION',
      `task must be transcribe or translate, got ${String(task)}`,
    );
  }
  if (task === 'translate' && !context.multilingual) {
    throw new WhisperError('WHISPER_INVALID_OPTION', 'this model is English-only and cannot translate');
  }
  const requestedContext = options.audioContext ?? 'clip';
  const audioContext =
    requestedContext === 'clip'
      ? audioContextForClip(context.samples, context.modelAudioContext)
      : integer('audioContext', requestedContext, 0, context.modelAudioContext);
  const noSpeechThreshold = options.noSpeechThreshold ?? 0.6;
  if (!(noSpeechThreshold >= 0 && noSpeechThreshold <= 1)) {
    throw new WhisperError('WHISPER_INVALID_OPTION', 'noSpeechThreshold must be between 0 and 1');
  }
  const temperature = options.temperature ?? 0;
  if (!(temperature >= 0 && temperature <= 1)) {
    throw new WhisperError('WHISPER_INVALID_OPTION', 'temperature must be between 0 and 1');
  }
  return {
    language,
    translate: task === 'translate',
    beamSize: integer('beamSize', options.beamSize ?? 1, 1, 8),
    threads: integer('threads', options.threads ?? 1, 1, 64),
    singleSegment: options.singleSegment ?? true,
    tokenTimestamps: options.tokenTimestamps ?? true,
    initialPrompt: options.initialPrompt ?? '',
    maxTokens: integer('maxTokens', options.maxTokens ?? 0, 0, 448),
    audioContext,
    suppressNonSpeech: options.suppressNonSpeech ?? true,
    noSpeechThreshold,
    temperature,
    temperatureIncrement: options.temperatureFallback ? TEMPERATURE_INCREMENT : 0,
  };
}
