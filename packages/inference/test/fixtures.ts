import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InferenceRequest } from '@live-captions/protocol';
import type { EngineConfig } from '../src/index.js';

export { readClip } from '../../whisper/test/fixtures.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

export function syntheticModel(name: 'tiny' | 'tiny.en' | 'base'): string {
  return join(repoRoot, 'models', `ggml-synthetic-${name}.bin`);
}

export function engineConfig(overrides: Partial<EngineConfig> = {}): EngineConfig {
  return {
    model: syntheticModel('tiny'),
    modelDir: join(repoRoot, 'models'),
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
