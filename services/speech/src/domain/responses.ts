/**
 * Response bodies of the decode routes, from an inference result.
 */
import type { InferenceResult, TranscribeResponse } from '@live-captions/protocol';

/** The result's seconds are already rounded to the contract's 3 decimals by the worker. */
export function nativeResponse(
  result: InferenceResult,
  requestId: string,
  streamId: string,
): TranscribeResponse {
  return {
    text: result.text,
    transcript: result.transcript,
    translation: result.translation,
    language: result.language,
    output_language: result.outputLanguage,
    translation_language: result.translationLanguage,
    mode: result.mode,
    audio_seconds: result.audioSeconds,
    committed_seconds: result.committedSeconds,
    request_id: requestId,
    stream_id: streamId,
    queue_seconds: result.queueSeconds,
    inference_seconds: result.inferenceSeconds,
    ...(trimmedByGuards(result) ? { trimmed: true as const } : {}),
  };
}

/** Whether a guard removed text (not only non-speech audio) from the result. */
export function trimmedByGuards(result: InferenceResult): boolean {
  const g = result.guards;
  return g !== undefined && g.phrasesDropped + g.loopsCut + g.unsureDropped > 0;
}
