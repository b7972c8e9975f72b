/**
 * What the tests of the inference engine and of the processes around it share: a plain request.
 * (The synthetic models' paths are whisper-models' `syntheticModel`, beside the code that writes
 * them.) A subpath of its own (`@live-captions/test-services/inference`) because the main entry
 * is loaded by jest's global setup without the workspace's source condition.
 */
import type { InferenceRequest } from '@live-captions/protocol';

/** A final English transcription of a whole clip, as the gateway would submit it. */
export function inferenceRequest(overrides: Partial<InferenceRequest> = {}): InferenceRequest {
  return {
    mode: 'transcribe',
    language: 'en',
    window: false,
    final: true,
    contextSeconds: 0,
    requestId: '',
    streamId: 'legacy',
    correlationId: 'test',
    ...overrides,
  };
}
