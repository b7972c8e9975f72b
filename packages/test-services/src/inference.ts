/**
 * What the tests of the inference engine and of the processes around it share: the synthetic
 * whisper models and a plain request. A subpath of its own (`@live-captions/test-services/inference`)
 * because the main entry is loaded by jest's global setup without the workspace's source
 * condition, and so must not load a workspace package.
 */
import type { InferenceRequest } from '@live-captions/protocol';
import { modelFile, modelSettings } from '@live-captions/whisper-models';

/**
 * A synthetic test model written by `pnpm model:synthetic` (the root test script runs it first)
 * into the models folder (CAPTION_MODEL_DIR, as the engine resolves it).
 */
export function syntheticModel(name: 'tiny' | 'tiny.en' | 'base'): string {
  return modelFile(`synthetic-${name}`, modelSettings().modelDir);
}

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
