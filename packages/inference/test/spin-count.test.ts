import { DEFAULT_SPIN_COUNT } from '@live-captions/whisper';
import { loadEngineConfig } from '../src/config.js';

describe('CAPTION_SPIN_COUNT', () => {
  it('is unset by default: the whisper package’s own count applies', () => {
    expect(loadEngineConfig({}).spinCount).toBeUndefined();
    expect(DEFAULT_SPIN_COUNT).toBeGreaterThan(0);
  });

  it('takes 0 (sleep at once) up to libgomp’s range, 300000 being libgomp’s own default', () => {
    expect(loadEngineConfig({ CAPTION_SPIN_COUNT: '0' }).spinCount).toBe(0);
    expect(loadEngineConfig({ CAPTION_SPIN_COUNT: '300000' }).spinCount).toBe(300_000);
  });

  it('names a wrong value', () => {
    expect(() => loadEngineConfig({ CAPTION_SPIN_COUNT: '-1' })).toThrow(/CAPTION_SPIN_COUNT.*at least 0/);
    expect(() => loadEngineConfig({ CAPTION_SPIN_COUNT: 'fast' })).toThrow(/CAPTION_SPIN_COUNT.*number/);
  });
});
