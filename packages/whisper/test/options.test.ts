import { audioContextForClip } from '../src/index.js';

describe('audioContextForClip', () => {
  it('sizes the encoder to the clip with a margin, in steps of 32', () => {
    expect(audioContextForClip(16_000, 1500)).toBe(96); // 1 s = 50 frames + 16 -> 96
    expect(audioContextForClip(3 * 16_000, 1500)).toBe(192); // 150 + 16 -> 192
    expect(audioContextForClip(100, 1500)).toBe(64);
  });

  it('never exceeds the model context', () => {
    expect(audioContextForClip(40 * 16_000, 1500)).toBe(1500);
  });
});
