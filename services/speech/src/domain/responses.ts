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

const seconds = (value: number) => Math.round(value * 1000) / 1000;

export function nativeResponse(result: InferenceResult, requestId: string, streamId: string): NativeResponse {
  return {
    text: result.text,
    transcript: result.transcript,
    translation: result.translation,
    language: result.language,
    output_language: result.outputLanguage,
    translation_language: result.translationLanguage,
    mode: result.mode,
    audio_seconds: seconds(result.audioSeconds),
    committed_seconds: seconds(result.committedSeconds),
    request_id: requestId,
    stream_id: streamId,
    queue_seconds: seconds(result.queueSeconds),
    inference_seconds: seconds(result.inferenceSeconds),
  };
}
