import { checkLanguageAndMode, modelAbilities, SAMPLE_RATE } from '@live-captions/audio';
import type {
  InferenceProgress,
  InferenceRequest,
  InferenceResult,
  ResultSegment,
} from '@live-captions/protocol';
import { InferenceError } from '../queue.js';
import type { DecodeSlot } from './decode-slot.js';

export type { DecodeSlot } from './decode-slot.js';

import { addReports, DEFAULT_GUARDS, emptyReport, type GuardReport, guardSegments } from './guards/index.js';
import { runOfflineDecode, speechSeconds } from './offline-job.js';
import { isSilent, sliceSeconds } from './pcm.js';
import { cutoffFor, cutWords, round3 } from './word-cut.js';

/** Shortest audio whisper.cpp decodes; it returns nothing below 100 ms. */
const MIN_DECODE_SECONDS = 0.1;

/** Refusals that depend only on the model: the rule the gateway checks before queueing. */
export function checkSupported(request: InferenceRequest, slot: Pick<DecodeSlot, 'multilingual'>): void {
  const check = checkLanguageAndMode(request.language, request.mode, modelAbilities(slot.multilingual));
  if (!check.ok) throw new InferenceError('unsupported', check.message);
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
  onProgress?: (progress: InferenceProgress) => void,
): Promise<InferenceResult> {
  checkSupported(request, slot);
  const started = performance.now();
  const duration = audio.length / SAMPLE_RATE;
  const guards = slot.guards ?? DEFAULT_GUARDS;
  if (request.offline) {
    const outcome = await runOfflineDecode(slot, request, audio, onProgress, guards);
    return result(request, {
      report: outcome.report,
      language: outcome.language,
      transcript: outcome.text,
      translation: outcome.text,
      duration,
      committed: duration,
      queueSeconds,
      started,
      segments: outcome.segments,
    });
  }
  const context = request.contextSeconds;
  const final = !request.window || request.final;
  const wantsTranscript = request.mode !== 'translate';
  const wantsTranslation = request.mode !== 'transcribe';

  let language: string | null = request.language === 'auto' ? null : request.language;
  let transcript = '';
  let translation = '';
  let committed = cutoffFor(duration, context, final);

  const report = emptyReport();
  const prompt = request.prompt ? { initialPrompt: request.prompt } : {};
  // The stream's last committed text is its `text`: the translation in mode `translate`, else the
  // transcript, so the decode that gives `text` is the one compared with it.
  const previous = request.previousText ? { previous: request.previousText } : {};
  // With a VAD model, speech detection runs beside the decode (its own thread), off the critical
  // path: a window without speech then answers like silence instead of a hallucination. A VAD
  // that fails lets the window through (undefined: speech unknown).
  const silent = isSilent(audio);
  const speech =
    slot.detectSpeech && !silent
      ? slot.detectSpeech(audio).then(
          (segments) => speechSeconds(segments, duration),
          () => undefined,
        )
      : undefined;
  if (silent) report.nonSpeechSeconds = duration;
  if (!silent) {
    // A translate-only unfinished window still needs the transcript's word cut to know which
    // audio is committed.
    const transcribed = wantsTranscript || !final;
    if (transcribed) {
      const decoded = await slot.decode(audio, { language: request.language, task: 'transcribe', ...prompt });
      const spoken = await speech;
      const guarded = guardSegments(decoded.segments, {
        settings: guards,
        language: decoded.language,
        speechRatio: spoken === undefined ? undefined : spoken / duration,
        ...(request.mode === 'translate' ? {} : previous),
      });
      addReports(report, guarded.report);
      const cut = cutWords({ tokens: guarded.segments.flatMap((s) => s.tokens), duration, context, final });
      transcript = cut.text;
      committed = cut.committedSeconds;
      language = decoded.language;
    }
    if ((await speech) === 0) {
      return result(request, {
        report: { ...emptyReport(), nonSpeechSeconds: duration },
        language: request.language === 'auto' ? null : request.language,
        transcript: '',
        translation: '',
        duration,
        committed: cutoffFor(duration, context, final),
        queueSeconds,
        started,
      });
    }
    if (wantsTranslation && committed - context >= MIN_DECODE_SECONDS) {
      if (transcribed && (language === 'en' || transcript === '')) {
        // English needs no translation, and an interval with no words has nothing to translate.
        translation = transcript;
      } else {
        const decoded = await slot.decode(sliceSeconds(audio, context, committed), {
          language: language ?? 'auto',
          task: 'translate',
          ...prompt,
        });
        const spoken = await speech;
        const guarded = guardSegments(decoded.segments, {
          settings: guards,
          language: 'en',
          speechRatio: spoken === undefined ? undefined : spoken / duration,
          ...(request.mode === 'translate' ? previous : {}),
        });
        addReports(report, guarded.report);
        translation = guarded.segments
          .map((segment) => segment.text)
          .join('')
          .trim();
        language ??= decoded.language;
      }
    }
  }
  return result(request, {
    report,
    language,
    transcript,
    translation,
    duration,
    committed,
    queueSeconds,
    started,
  });
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
    segments?: ResultSegment[];
    report: GuardReport;
  },
): InferenceResult {
  const { report } = parts;
  const guarded =
    report.nonSpeechSeconds + report.phrasesDropped + report.loopsCut + report.unsureDropped > 0;
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
    ...(parts.segments ? { segments: parts.segments } : {}),
    ...(guarded ? { guards: { ...report, nonSpeechSeconds: round3(report.nonSpeechSeconds) } } : {}),
  };
}
