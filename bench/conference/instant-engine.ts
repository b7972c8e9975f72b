/**
 * `instantEngine`: a bench-only inference backend for `pnpm bench conference` (a), the "engine
 * stand-in". It answers every window at once with a fixed text and no decode, so what a
 * conference run costs with it is the plumbing alone: sources' ffmpeg and capture policy, the
 * gateway's HTTP and admission, the relay, the outputs service, translation. Never used by the
 * services or the tests.
 */
import { UNFINISHED_TAIL_SECONDS } from '@live-captions/audio';
import type { InferenceQueue } from '@live-captions/inference';
import type { EngineInfo, InferenceRequest, InferenceResult } from '@live-captions/protocol';

/** What every window says: a short English sentence, so that the translation has work to do. */
export const INSTANT_TEXT = 'The council meets on Tuesday to discuss the budget.';

const SAMPLE_RATE = 16_000;

export function instantEngine(text = INSTANT_TEXT): InferenceQueue {
  const startedAt = Date.now();
  let completed = 0;
  const engine: EngineInfo = {
    model: 'instant-engine (bench stand-in, no decode)',
    device: 'cpu',
    computeType: 'none',
    multilingual: true,
    languages: ['en'],
    modes: ['transcribe'],
    translationTarget: null,
    decodeSlots: 64,
    threadsPerSlot: 1,
    beamSize: 1,
  };
  return {
    start: async () => undefined,
    async submit(request: InferenceRequest, audio: Float32Array): Promise<InferenceResult> {
      completed += 1;
      const audioSeconds = audio.length / SAMPLE_RATE;
      // As the word cut commits: everything of a final window, else up to the unfinished tail.
      const committedSeconds = request.final
        ? audioSeconds
        : Math.max(request.contextSeconds, audioSeconds - UNFINISHED_TAIL_SECONDS);
      return {
        text,
        transcript: text,
        translation: '',
        language: request.language === 'auto' ? 'en' : request.language,
        outputLanguage: request.language === 'auto' ? 'en' : request.language,
        translationLanguage: null,
        mode: request.mode,
        audioSeconds,
        committedSeconds: Math.round(committedSeconds * 1000) / 1000,
        queueSeconds: 0,
        inferenceSeconds: 0,
      };
    },
    status: async () => ({
      workers: [
        {
          id: 'instant',
          engine,
          ready: true,
          running: 0,
          completed,
          queueTimeouts: 0,
          startedAt,
          updatedAt: Date.now(),
        },
      ],
      pending: 0,
    }),
    engine: async () => engine,
    close: async () => undefined,
  };
}
