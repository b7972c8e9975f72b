/**
 * `/v1` beyond json/text, through the official `openai` SDK (pinned): verbose_json with word and
 * segment timestamps, srt and vtt (parsed with the `subtitle` package), and Silero VAD skipping
 * non-speech. The engine is the real whisper.cpp on the synthetic tiny model (it says " test"
 * for any audio it decodes) with the real Silero VAD model, so segment times are real VAD
 * regions of the real clips.
 */
import { describe, expect, it } from '@jest/globals';
import { decodeWav } from '@live-captions/audio';
import { whiteNoise } from '@live-captions/test-services/clips';
import OpenAI, { toFile } from 'openai';
import { parseSync } from 'subtitle';
import request from 'supertest';
import { Messages } from '../src/domain/errors.js';
import { readAudio } from './helpers/gateway.js';
import {
  AUTH,
  JFK_SPEECH,
  jfk,
  noiseWav,
  type OpenAiStack,
  silenceWav,
  useVadStacks,
} from './helpers/openai-stack.js';
import { pcmBody } from './helpers/wav.js';

let vad: OpenAiStack;
let plain: OpenAiStack;
useVadStacks((stacks) => ({ vad, plain } = stacks));

describe('verbose_json', () => {
  it('parses with word and segment timestamps; segments are the VAD regions, words inside them', async () => {
    const result = await vad.client.audio.transcriptions.create({
      file: await toFile(jfk, 'jfk.wav'),
      model: 'whisper-1',
      language: 'en',
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
    });
    expect(result).toMatchObject({
      task: 'transcribe',
      language: 'english',
      duration: 11,
      text: 'test test test test',
      usage: { type: 'duration', seconds: 11 },
    });
    const segments = result.segments ?? [];
    expect(segments).toHaveLength(4);
    segments.forEach((segment, i) => {
      expect(segment).toEqual({
        id: i,
        seek: 0,
        start: expect.any(Number),
        end: expect.any(Number),
        text: ' test',
        tokens: [expect.any(Number)],
        temperature: 0,
        avg_logprob: expect.any(Number),
        compression_ratio: expect.any(Number),
        no_speech_prob: expect.any(Number),
      });
      // Each segment lies in its speech region (with the decode margin), never across a pause.
      const [from, to] = JFK_SPEECH[i]!;
      expect(segment.start).toBeGreaterThanOrEqual(from - 0.45);
      expect(segment.end).toBeLessThanOrEqual(to + 0.45);
      expect(segment.end).toBeGreaterThan(segment.start);
      expect(segment.avg_logprob).toBeLessThanOrEqual(0);
      expect(segment.no_speech_prob).toBeGreaterThanOrEqual(0);
      expect(segment.no_speech_prob).toBeLessThanOrEqual(1);
      expect(segment.compression_ratio).toBeGreaterThan(0);
    });
    const words = result.words ?? [];
    expect(words.map((word) => word.word)).toEqual(['test', 'test', 'test', 'test']);
    let previous = 0;
    words.forEach((word, i) => {
      expect(word.start).toBeGreaterThanOrEqual(previous);
      expect(word.end).toBeGreaterThanOrEqual(word.start);
      expect(word.end).toBeLessThanOrEqual(result.duration);
      expect(word.start).toBeGreaterThanOrEqual(segments[i]!.start);
      expect(word.end).toBeLessThanOrEqual(segments[i]!.end);
      previous = word.end;
    });
  });

  it('gives segments only by default, words only when asked for words alone', async () => {
    const base = {
      file: await toFile(jfk, 'jfk.wav'),
      model: 'whisper-1',
      response_format: 'verbose_json',
    } as const;
    const byDefault = await vad.client.audio.transcriptions.create(base);
    expect(byDefault.segments).toHaveLength(4);
    expect(byDefault.words).toBeUndefined();
    const wordsOnly = await vad.client.audio.transcriptions.create({
      ...base,
      file: await toFile(jfk, 'jfk.wav'),
      timestamp_granularities: ['word'],
    });
    expect(wordsOnly.segments).toBeUndefined();
    expect(wordsOnly.words).toHaveLength(4);
  });

  it('translations answer verbose_json with task translate', async () => {
    const result = (await vad.client.audio.translations.create({
      file: await toFile(readAudio('de-picovoice-test_de.wav'), 'de.wav'),
      model: 'whisper-1',
      response_format: 'verbose_json',
    })) as OpenAI.Audio.TranslationVerbose;
    expect(result).toMatchObject({ task: 'translate', text: expect.stringContaining('test') });
    expect(result.segments!.length).toBeGreaterThan(0);
  });

  it('raises BadRequestError for granularities without verbose_json or with a bad value', async () => {
    const wrongFormat = await vad.client.audio.transcriptions
      .create({ file: await toFile(jfk, 'jfk.wav'), model: 'whisper-1', timestamp_granularities: ['word'] })
      .catch((error: unknown) => error);
    expect(wrongFormat).toBeInstanceOf(OpenAI.BadRequestError);
    expect(wrongFormat).toMatchObject({ status: 400, param: 'timestamp_granularities' });
    expect((wrongFormat as Error).message).toBe(`400 ${Messages.granularityFormat}`);
    const wrongValue = await vad.client.audio.transcriptions
      .create({
        file: await toFile(jfk, 'jfk.wav'),
        model: 'whisper-1',
        response_format: 'verbose_json',
        timestamp_granularities: ['char' as 'word'],
      })
      .catch((error: unknown) => error);
    expect(wrongValue).toBeInstanceOf(OpenAI.BadRequestError);
    expect((wrongValue as Error).message).toBe(`400 ${Messages.granularity}`);
  });
});

describe('srt and vtt', () => {
  it('parse with a subtitle parser, one cue per segment at the segment times', async () => {
    const verbose = await vad.client.audio.transcriptions.create({
      file: await toFile(jfk, 'jfk.wav'),
      model: 'whisper-1',
      response_format: 'verbose_json',
    });
    const expected = (verbose.segments ?? []).map((segment) => ({
      type: 'cue',
      data: { start: Math.round(segment.start * 1000), end: Math.round(segment.end * 1000), text: 'test' },
    }));
    expect(expected).toHaveLength(4);
    for (const format of ['srt', 'vtt'] as const) {
      const text = await vad.client.audio.transcriptions.create({
        file: await toFile(jfk, 'jfk.wav'),
        model: 'whisper-1',
        response_format: format,
      });
      const cues = parseSync(text).filter((node) => node.type === 'cue');
      expect(cues).toEqual(expected.map((cue) => ({ ...cue, data: { ...cue.data, settings: undefined } })));
      if (format === 'vtt') expect(text.startsWith('WEBVTT\n\n')).toBe(true);
      else expect(text.startsWith('1\n00:00:0')).toBe(true);
    }
  });
});

describe('VAD on /v1', () => {
  it('decodes nothing in silence or white noise (the engine without VAD hallucinates on noise)', async () => {
    for (const wav of [silenceWav, noiseWav]) {
      const result = await vad.client.audio.transcriptions.create({
        file: await toFile(wav, 'nothing.wav'),
        model: 'whisper-1',
        response_format: 'verbose_json',
      });
      expect({ text: result.text, segments: result.segments }).toEqual({ text: '', segments: [] });
      const srt = await vad.client.audio.transcriptions.create({
        file: await toFile(wav, 'nothing.wav'),
        model: 'whisper-1',
        response_format: 'srt',
      });
      expect(srt).toBe('');
    }
    const hallucinated = await plain.client.audio.transcriptions.create({
      file: await toFile(noiseWav, 'noise.wav'),
      model: 'whisper-1',
    });
    expect(hallucinated.text).toBe('test');
  });
});

describe('VAD on the native route', () => {
  const window = (base: string, samples: Float32Array) =>
    request(base)
      .post('/transcribe?language=en&window=1&final=1&context_seconds=0.5')
      .set({ ...AUTH, 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' })
      .send(pcmBody(samples));

  it('answers a window of noise like silence (same contract), where the engine alone hallucinates', async () => {
    const noise = whiteNoise(4, 0.3, 0x2545f491);
    const quiet = await window(vad.gateway.base, noise).expect(200);
    expect(quiet.body).toMatchObject({ text: '', transcript: '', audio_seconds: 4, committed_seconds: 4 });
    const heard = await window(plain.gateway.base, noise).expect(200);
    expect(heard.body.text).toBe('test');
    // Speech still decodes with VAD on.
    const speech = decodeWav(jfk).samples.subarray(0, 4 * 16000);
    const spoken = await window(vad.gateway.base, speech).expect(200);
    expect(spoken.body.text).toBe('test');
  });
});
