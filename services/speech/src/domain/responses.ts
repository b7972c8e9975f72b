/**
 * Response bodies of the decode routes, from an inference result.
 */
import type { InferenceResult } from '@live-captions/protocol';

/** `POST /transcribe` 200 body (speech-contract.md, "Native response"). */
export interface NativeResponse {
  text: string;
  transcript: string;
  translation: string;
  language: string | null;
  output_language: string | null;
  translation_language: string | null;
  mode: InferenceResult['mode'];
  audio_seconds: number;
  committed_seconds: number;
  request_id: string;
  stream_id: string;
  queue_seconds: number;
  inference_seconds: number;
}

/** The result's seconds are already rounded to the contract's 3 decimals by the worker. */
export function nativeResponse(result: InferenceResult, requestId: string, streamId: string): NativeResponse {
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
  };
}
