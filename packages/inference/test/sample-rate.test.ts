import { describe, expect, it } from '@jest/globals';
import { SAMPLE_RATE } from '@live-captions/audio';
import { SAMPLE_RATE as WHISPER_SAMPLE_RATE } from '@live-captions/whisper';

describe('the audio contract', () => {
  // The whisper package keeps whisper.cpp's own constant: its image layer builds without the rest.
  it("takes whisper.cpp's sample rate", () => {
    expect(SAMPLE_RATE).toBe(WHISPER_SAMPLE_RATE);
  });
});
