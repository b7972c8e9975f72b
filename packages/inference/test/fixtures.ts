import { dirname } from 'node:path';
import type { InferenceRequest } from '@live-captions/protocol';
import { syntheticModel } from '../../whisper/test/fixtures.js';
import type { EngineConfig } from '../src/index.js';

export { readClip, syntheticModel } from '../../whisper/test/fixtures.js';

export function engineConfig(overrides: Partial<EngineConfig> = {}): EngineConfig {
  return {
    model: syntheticModel('tiny'),
    modelDir: dirname(syntheticModel('tiny')),
    workers: 1,
    threadsPerWorker: 2,
    beamSize: undefined,
    offline: true,
    queueName: `test-${Math.random().toString(36).slice(2)}`,
    watchdogMs: 90_000,
    ...overrides,
  };
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
