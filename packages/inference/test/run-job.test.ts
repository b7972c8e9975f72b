/**
 * What a job asks of the engine and what its guards see, with a decode slot that records the
 * calls and says a fixed text: the prompt reaches every decode of a live window, and the text the
 * stream committed just before is what the repeat guard compares with, on windows and offline.
 */
import { describe, expect, it } from '@jest/globals';
import type { InferenceRequest } from '@live-captions/protocol';
import type { DecodeOptions, Transcription } from '@live-captions/whisper';
import { type DecodeSlot, runInferenceJob } from '../src/domain/run-job.js';

const SAID = ' the budget plan for next year';

function recordingSlot(said = SAID, language = 'en') {
  const calls: DecodeOptions[] = [];
  const slot: DecodeSlot = {
    multilingual: true,
    async decode(_audio: Float32Array, options: DecodeOptions): Promise<Transcription> {
      calls.push(options);
      const words = said.split(/(?= )/);
      const step = 1.5 / words.length;
      return {
        language,
        languageProbability: 1,
        text: said,
        decodeMs: 1,
        segments: [
          {
            text: said,
            t0: 0,
            t1: 1.5,
            noSpeechProbability: 0,
            tokens: words.map((text, i) => ({
              id: i,
              text,
              t0: i * step,
              t1: (i + 1) * step,
              probability: 1,
              logprob: 0,
            })),
          },
        ],
      };
    },
  };
  return { slot, calls };
}

const request = (more: Partial<InferenceRequest> = {}): InferenceRequest => ({
  mode: 'transcribe',
  language: 'en',
  window: true,
  final: true,
  contextSeconds: 0,
  requestId: '',
  streamId: 'stream-1',
  correlationId: 'c',
  ...more,
});

const loud = (seconds: number) => new Float32Array(seconds * 16000).fill(0.1);

describe('a live window', () => {
  it('is decoded with the prompt, transcription and translation alike', async () => {
    const { slot, calls } = recordingSlot();
    await runInferenceJob(
      slot,
      request({ mode: 'translate', language: 'de', prompt: 'Quilter, Ngozi' }),
      loud(2),
      0,
    );
    expect(calls).toEqual([{ language: 'de', task: 'translate', initialPrompt: 'Quilter, Ngozi' }]);
    const both = recordingSlot(' das ist der Plan für das Jahr', 'de');
    await runInferenceJob(
      both.slot,
      request({ mode: 'both', language: 'de', prompt: 'Quilter' }),
      loud(2),
      0,
    );
    expect(both.calls.map((call) => [call.task, call.initialPrompt])).toEqual([
      ['transcribe', 'Quilter'],
      ['translate', 'Quilter'],
    ]);
  });

  it('has no prompt unless one is given', async () => {
    const { slot, calls } = recordingSlot();
    await runInferenceJob(slot, request(), loud(2), 0);
    expect(calls).toEqual([{ language: 'en', task: 'transcribe' }]);
  });

  it('saying again what the stream committed just before is a loop: dropped and counted', async () => {
    const { slot } = recordingSlot();
    const repeated = await runInferenceJob(
      slot,
      request({ previousText: 'The budget plan, for next year.' }),
      loud(2),
      0,
    );
    expect(repeated.text).toBe('');
    expect(repeated.guards).toMatchObject({ loopsCut: 1 });
    const other = await runInferenceJob(
      slot,
      request({ previousText: 'Something else was said before.' }),
      loud(2),
      0,
    );
    expect(other.text).toBe('the budget plan for next year');
    expect(other.guards).toBeUndefined();
  });

  it('compares the translation with what was committed in mode translate', async () => {
    const { slot } = recordingSlot();
    const answer = await runInferenceJob(
      slot,
      request({ mode: 'translate', language: 'de', previousText: 'the budget plan for next year' }),
      loud(2),
      0,
    );
    expect(answer.text).toBe('');
    expect(answer.guards).toMatchObject({ loopsCut: 1 });
  });
});

describe('an offline decode (a realtime turn)', () => {
  it('starts from the text committed just before it', async () => {
    const { slot } = recordingSlot();
    const turn = request({ window: false, offline: { temperature: 0 } });
    expect((await runInferenceJob(slot, turn, loud(2), 0)).text).toBe('the budget plan for next year');
    const again = await runInferenceJob(
      slot,
      { ...turn, previousText: 'the budget plan for next year' },
      loud(2),
      0,
    );
    expect(again.text).toBe('');
    expect(again.guards).toMatchObject({ loopsCut: 1 });
  });
});
