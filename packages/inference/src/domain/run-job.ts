import { type InferenceRequest, type InferenceResult, isWhisperLanguage } from '@live-captions/protocol';
import type { DecodeOptions, Transcription } from '@live-captions/whisper';
import { SAMPLE_RATE } from '@live-captions/whisper';
import { InferenceError } from '../queue.js';
import { isSilent, sliceSeconds } from './pcm.js';
import { cutoffFor, cutWords, round3 } from './word-cut.js';

/** What a job needs of the engine: one decode slot and the model's abilities. */
export interface DecodeSlot {
  multilingual: boolean;
  decode(audio: Float32Array, options: DecodeOptions): Promise<Transcription>;
}

/** Shortest audio whisper.cpp decodes; it returns nothing below 100 ms. */
const MIN_DECODE_SECONDS = 0.1;

export const ENGLISH_ONLY_MESSAGE =
  'This model is English-only: use a multilingual model for this language or translation';

/** Refusals that depend only on the model; the gateway checks the same before queueing. */
export function checkSupported(request: InferenceRequest, slot: Pick<DecodeSlot, 'multilingual'>): void {
  if (request.language !== 'auto' && !isWhisperLanguage(request.language)) {
    throw new InferenceError('unsupported', 'Unknown language code');
  }
  if (!slot.multilingual && (request.mode !== 'transcribe' || !['en', 'auto'].includes(request.language))) {
    throw new InferenceError('unsupported', ENGLISH_ONLY_MESSAGE);
  }
}

/**
 * Runs one request: transcription with the rolling-window word cut, translation of the committed
 * interval only (so transcript and translation cover the same audio), silence short-cut.
 * `queueSeconds` is measured by the caller; inference time is measured here.
 */
export async function runInferenceJob(
  slot: DecodeSlot,
  request: InferenceRequest,
  audio: Float32Array,
  queueSeconds: number,
): Promise<InferenceResult> {
  checkSupported(request, slot);
  const started = performance.now();
  const duration = audio.length / SAMPLE_RATE;
  const context = request.contextSeconds;
  const final = !request.window || request.final;
  const wantsTranscript = request.mode !== 'translate';
  const wantsTranslation = request.mode !== 'transcribe';

  let language: string | null = request.language === 'auto' ? null : request.language;
  let transcript = '';
  let translation = '';
  let committed = cutoffFor(duration, context, final);

  if (!isSilent(audio)) {
    // A translate-only unfinished window still needs the transcript's word cut to know which
    // audio is committed.
    const transcribed = wantsTranscript || !final;
    if (transcribed) {
      const decoded = await slot.decode(audio, { language: request.language, task: 'transcribe' });
      const cut = cutWords({ tokens: decoded.segments.flatMap((s) => s.tokens), duration, context, final });
      transcript = cut.text;
      committed = cut.committedSeconds;
      language = decoded.language;
    }
    if (wantsTranslation && committed - context >= MIN_DECODE_SECONDS) {
      if (transcribed && (language === 'en' || transcript === '')) {
        // English needs no translation, and an interval with no words has nothing to translate.
        translation = transcript;
      } else {
        const decoded = await slot.decode(sliceSeconds(audio, context, committed), {
          language: language ?? 'auto',
          task: 'translate',
        });
        translation = decoded.text.trim();
        language ??= decoded.language;
      }
    }
  }
  return result(request, { language, transcript, translation, duration, committed, queueSeconds, started });
}

function result(
  request: InferenceRequest,
  parts: {
    language: string | null;
    transcript: string;
    translation: string;
    duration: number;
    committed: number;
    queueSeconds: number;
    started: number;
  },
): InferenceResult {
  const translating = request.mode !== 'transcribe';
  return {
    text: request.mode === 'translate' ? parts.translation : parts.transcript,
    transcript: request.mode === 'translate' ? '' : parts.transcript,
    translation: translating ? parts.translation : '',
    language: parts.language,
    outputLanguage: request.mode === 'translate' ? 'en' : parts.language,
    translationLanguage: translating ? 'en' : null,
    mode: request.mode,
    audioSeconds: round3(parts.duration),
    committedSeconds: round3(parts.committed),
    queueSeconds: round3(parts.queueSeconds),
    inferenceSeconds: round3((performance.now() - parts.started) / 1000),
  };
}
