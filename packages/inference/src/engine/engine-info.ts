import { modelAbilities } from '@live-captions/audio';
import type { EngineInfo } from '@live-captions/protocol';
import type { ModelInfo } from '@live-captions/whisper';

/**
 * What a pool announces of its engine (health, `/v1/models`, the workers' status): the modes a
 * model can serve (translation needs a multilingual model, and translates to English only) and
 * the beam size decodes use, by default 1 on CPU and 5 on GPU.
 */
export function describeEngine(
  model: ModelInfo,
  options: { modelName: string; decodeSlots: number; threadsPerSlot: number; beamSize?: number },
): EngineInfo {
  const multilingual = model.multilingual;
  return {
    model: options.modelName,
    device: model.device,
    computeType: model.ftype,
    multilingual,
    languages: model.languages,
    modes: [...modelAbilities(multilingual).modes],
    translationTarget: multilingual ? 'en' : null,
    decodeSlots: options.decodeSlots,
    threadsPerSlot: options.threadsPerSlot,
    beamSize: options.beamSize ?? (model.device === 'cuda' ? 5 : 1),
  };
}
