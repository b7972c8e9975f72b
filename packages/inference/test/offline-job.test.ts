import type { InferenceRequest } from '@live-captions/protocol';
import type { DecodeOptions, Transcription } from '@live-captions/whisper';
import { decodeRegions, regionSegments, runOfflineDecode } from '../src/domain/offline-job.js';
import type { DecodeSlot } from '../src/domain/run-job.js';

const request = (
  offline: InferenceRequest['offline'],
  language = 'auto',
  more: Partial<InferenceRequest> = {},
): InferenceRequest => ({
  mode: 'transcribe',
  language,
  window: false,
  final: true,
  contextSeconds: 0,
  requestId: '',
  streamId: 'legacy',
  correlationId: 'c',
  ...(offline ? { offline } : {}),
  ...more,
});

/** A decode slot that records what the job asks of the engine; the engine itself is tested elsewhere. */
function recordingSlot(speech: { start: number; end: number }[] | undefined) {
  const calls: { seconds: number; options: DecodeOptions }[] = [];
  const slot: DecodeSlot = {
    multilingual: true,
    async decode(audio: Float32Array, options: DecodeOptions): Promise<Transcription> {
      calls.push({ seconds: audio.length / 16000, options });
      const n = calls.length;
      return {
        language: 'de',
        languageProbability: 0.9,
        text: ` word${n}`,
        decodeMs: 1,
        segments: [
          {
            text: ` word${n}`,
            t0: 0.1,
            t1: 9,
            noSpeechProbability: 0,
            tokens: [{ id: n, text: ` word${n}`, t0: 0.1, t1: 9, probability: 1, logprob: 0 }],
          },
        ],
      };
    },
    ...(speech ? { detectSpeech: async () => speech } : {}),
  };
  return { slot, calls };
}

const loud = (seconds: number) => new Float32Array(seconds * 16000).fill(0.1);

describe('decodeRegions', () => {
  it('widens VAD regions by the margin, clamps them to the clip and merges overlaps', () => {
    expect(
      decodeRegions(
        [
          { start: 3.0, end: 4.0 },
          { start: 0.1, end: 1.0 },
          { start: 4.3, end: 5.9 },
        ],
        6,
      ),
    ).toEqual([
      { start: 0, end: 1.2 },
      { start: 2.8, end: 6 },
    ]);
    expect(decodeRegions([], 6)).toEqual([]);
  });
});

describe('regionSegments', () => {
  it('shifts times to the clip and keeps them inside the region', () => {
    const [segment] = regionSegments(
      {
        segments: [
          {
            text: ' hi',
            t0: -0.5,
            t1: 3,
            noSpeechProbability: 0.2,
            tokens: [{ id: 7, text: ' hi', t0: 0.2, t1: 3, probability: 0.5, logprob: -0.7 }],
          },
        ],
      },
      { start: 2, end: 4 },
      0.3,
    );
    expect(segment).toEqual({
      start: 2,
      end: 4,
      text: ' hi',
      tokens: [{ id: 7, text: ' hi', start: 2.2, end: 4, logprob: -0.7 }],
      temperature: 0.3,
      noSpeechProbability: 0.2,
    });
  });
});

describe('runOfflineDecode', () => {
  it('decodes each speech region with the prompt, earlier text, temperature and fallback; reports each', async () => {
    const { slot, calls } = recordingSlot([
      { start: 0.5, end: 1.5 },
      { start: 3, end: 4 },
    ]);
    const progress: unknown[] = [];
    const outcome = await runOfflineDecode(
      slot,
      request({ temperature: 0.2 }, 'auto', { prompt: 'Glossary: Quilter.' }),
      loud(5),
      (p) => progress.push(p),
    );
    expect(calls.map((call) => call.seconds)).toEqual([1.4, 1.4]);
    expect(calls.map((call) => call.options)).toEqual([
      {
        language: 'auto',
        task: 'transcribe',
        singleSegment: false,
        initialPrompt: 'Glossary: Quilter.',
        temperature: 0.2,
        temperatureFallback: true,
      },
      // The detected language is kept; the first region's text primes the second.
      {
        language: 'de',
        task: 'transcribe',
        singleSegment: false,
        initialPrompt: 'Glossary: Quilter. word1',
        temperature: 0.2,
        temperatureFallback: true,
      },
    ]);
    expect(outcome.text).toBe('word1 word2');
    expect(outcome.language).toBe('de');
    expect(outcome.segments.map((s) => [s.start, s.end])).toEqual([
      [0.4, 1.7],
      [2.9, 4.2],
    ]);
    expect(progress).toEqual([
      { offset: 0, segments: [outcome.segments[0]] },
      { offset: 1, segments: [outcome.segments[1]] },
    ]);
  });

  it('decodes nothing when VAD finds no speech, or for digital silence; the whole clip without VAD', async () => {
    const none = recordingSlot([]);
    expect(await runOfflineDecode(none.slot, request({ temperature: 0 }, 'en'), loud(2))).toEqual({
      language: 'en',
      text: '',
      segments: [],
      report: { nonSpeechSeconds: 2, phrasesDropped: 0, loopsCut: 0, unsureDropped: 0 },
    });
    expect(none.calls).toEqual([]);
    const silent = recordingSlot(undefined);
    await runOfflineDecode(silent.slot, request(undefined), new Float32Array(16000));
    expect(silent.calls).toEqual([]);
    const whole = recordingSlot(undefined);
    await runOfflineDecode(whole.slot, request(undefined), loud(3));
    expect(whole.calls.map((call) => call.seconds)).toEqual([3]);
  });
});
