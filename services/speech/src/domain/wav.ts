/**
 * A `/v1` upload's WAV file (the codec is `@live-captions/audio`'s), its refusals in the
 * contract's statuses: not RIFF/WAVE, compressed, > 2 channels or a rate outside 8-48 kHz -> 415;
 * truncated or non-finite samples -> 400; shorter than 0.01 s or longer than 12 s -> 413.
 */
import { type DecodedWav, decodeWav, WavError, type WavProblem } from '@live-captions/audio';
import { HttpError, Messages } from './errors.js';

const REFUSALS: Record<WavProblem, [status: number, message: string]> = {
  unsupported: [415, Messages.wavUnsupported],
  channels: [415, Messages.wavChannels],
  rate: [415, Messages.wavRate],
  truncated: [400, Messages.wavTruncated],
  samples: [400, Messages.pcmSamples],
  tooShort: [413, Messages.audioTooShort],
  tooLong: [413, Messages.audioTooLong],
};

/** The upload as 16 kHz mono float32, or the contract's refusal. */
export function decodeWavUpload(file: Buffer): DecodedWav {
  try {
    return decodeWav(file);
  } catch (error) {
    if (!(error instanceof WavError)) throw error;
    const [status, message] = REFUSALS[error.problem];
    throw new HttpError(status, message, { param: 'file' });
  }
}
