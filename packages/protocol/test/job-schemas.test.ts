import { describe, expect, it } from '@jest/globals';
import { type InferenceResult, inferenceResultSchema } from '../src/index.js';

describe('inferenceResultSchema', () => {
  it('keeps every field of a result that crosses Redis (zod drops what it does not name)', () => {
    const result: Required<InferenceResult> = {
      text: 'Thank you',
      transcript: 'Thank you',
      translation: '',
      language: 'en',
      outputLanguage: 'en',
      translationLanguage: null,
      mode: 'transcribe',
      audioSeconds: 3,
      committedSeconds: 2.5,
      queueSeconds: 0.01,
      inferenceSeconds: 0.2,
      segments: [
        {
          start: 0,
          end: 1,
          text: ' Thank you',
          tokens: [{ id: 1, text: ' Thank', start: 0, end: 0.5, logprob: -0.1 }],
          temperature: 0,
          noSpeechProbability: 0.01,
        },
      ],
      guards: { nonSpeechSeconds: 0.5, phrasesDropped: 0, loopsCut: 1, unsureDropped: 0 },
    };
    expect(inferenceResultSchema.parse(result)).toEqual(result);
  });
});
