import { describe, expect, it } from '@jest/globals';
import { MAX_PROMPT_CHARS } from '@live-captions/audio';
import type { InferenceResult, ResultSegment } from '@live-captions/protocol';
import fc from 'fast-check';
import { parseSync } from 'subtitle';
import { type HttpError, Messages, unknownField } from '../src/domain/errors.js';
import { parseOpenAiFields } from '../src/domain/openai-request.js';
import {
  compressionRatio,
  jsonTranscript,
  languageName,
  segmentWords,
  srt,
  streamBody,
  verboseJson,
  vtt,
} from '../src/domain/transcript.js';

const token = (text: string, start: number, end: number, id = 1) => ({
  id,
  text,
  start,
  end,
  logprob: -0.25,
});

function segment(start: number, end: number, words: [string, number, number][]): ResultSegment {
  return {
    start,
    end,
    text: words.map(([text]) => text).join(''),
    tokens: words.map(([text, t0, t1]) => token(text, t0, t1)),
    temperature: 0,
    noSpeechProbability: 0.01,
  };
}

const result = (segments: ResultSegment[], audioSeconds = 5): InferenceResult => ({
  text: segments
    .map((s) => s.text)
    .join('')
    .trim(),
  transcript: '',
  translation: '',
  language: 'en',
  outputLanguage: 'en',
  translationLanguage: null,
  mode: 'transcribe',
  audioSeconds,
  committedSeconds: audioSeconds,
  queueSeconds: 0,
  inferenceSeconds: 0,
  segments,
});

const two = result(
  [
    segment(0.2, 1.5, [
      [' Hello', 0.3, 0.7],
      [',', 0.7, 0.72],
      [' world', 0.8, 1.4],
    ]),
    segment(3661.5, 3662.25, [[' again.', 3661.6, 3662.2]]),
  ],
  3663,
);

describe('subtitles', () => {
  it('writes SRT and WebVTT that a subtitle parser reads back at the segment times', () => {
    expect(srt(two)).toBe(
      '1\n00:00:00,200 --> 00:00:01,500\nHello, world\n\n2\n01:01:01,500 --> 01:01:02,250\nagain.\n\n',
    );
    expect(vtt(two)).toBe(
      'WEBVTT\n\n00:00:00.200 --> 00:00:01.500\nHello, world\n\n01:01:01.500 --> 01:01:02.250\nagain.\n\n',
    );
    for (const text of [srt(two), vtt(two)]) {
      expect(parseSync(text).flatMap((node) => (node.type === 'cue' ? [node.data] : []))).toEqual([
        { start: 200, end: 1500, text: 'Hello, world', settings: undefined },
        { start: 3661500, end: 3662250, text: 'again.', settings: undefined },
      ]);
    }
    expect(srt(result([]))).toBe('');
    expect(vtt(result([]))).toBe('WEBVTT\n\n');
  });
});

describe('verbose_json', () => {
  it('has OpenAI’s fields; words without edge punctuation; segments or words on request', () => {
    const body = verboseJson(two, 'transcribe', ['word', 'segment']);
    expect(body).toMatchObject({
      task: 'transcribe',
      language: 'english',
      duration: 3663,
      text: 'Hello, world again.',
    });
    expect(body.usage).toEqual({ type: 'duration', seconds: 3663 });
    expect(body.segments![0]).toEqual({
      id: 0,
      seek: 0,
      start: 0.2,
      end: 1.5,
      text: ' Hello, world',
      tokens: [1, 1, 1],
      temperature: 0,
      avg_logprob: -0.25,
      compression_ratio: compressionRatio('Hello, world'),
      no_speech_prob: 0.01,
    });
    expect(body.words).toEqual([
      { word: 'Hello', start: 0.3, end: 0.72 },
      { word: 'world', start: 0.8, end: 1.4 },
      { word: 'again', start: 3661.6, end: 3662.2 },
    ]);
    expect(verboseJson(two, 'transcribe', []).words).toBeUndefined();
    expect(verboseJson(two, 'transcribe', ['word']).segments).toBeUndefined();
    expect(verboseJson({ ...two, language: null }, 'translate', []).language).toBe('');
    expect(languageName('zh')).toBe('chinese');
  });

  it('words are monotonic, inside their segment and inside the clip, whatever whisper timed', () => {
    const time = fc.double({ min: -2, max: 14, noNaN: true });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            start: time,
            end: time,
            words: fc.array(fc.tuple(time, time), { minLength: 1, maxLength: 6 }),
          }),
          { maxLength: 5 },
        ),
        (raw) => {
          const segments = raw.map((s) =>
            segment(
              s.start,
              s.end,
              s.words.map(([a, b], i) => [` w${i}`, a, b]),
            ),
          );
          const body = verboseJson(result(segments, 12), 'transcribe', ['word', 'segment']);
          let floor = 0;
          for (const s of body.segments!) {
            expect(s.start).toBeGreaterThanOrEqual(floor);
            expect(s.end).toBeGreaterThanOrEqual(s.start);
            expect(s.end).toBeLessThanOrEqual(12);
            floor = s.end;
          }
          floor = 0;
          for (const word of body.words!) {
            expect(word.start).toBeGreaterThanOrEqual(floor);
            expect(word.end).toBeGreaterThanOrEqual(word.start);
            expect(word.end).toBeLessThanOrEqual(12);
            expect(body.segments!.some((s) => word.start >= s.start && word.end <= s.end)).toBe(true);
            floor = word.end;
          }
          expect(body.words).toHaveLength(segments.reduce((n, s) => n + s.tokens.length, 0));
        },
      ),
    );
  });

  it('segmentWords joins sub-word tokens and keeps words at their segment', () => {
    expect(
      segmentWords([
        segment(1, 2, [
          [' un', 0.5, 1.2],
          ['believ', 1.2, 1.5],
          ['able', 1.5, 2.5],
        ]),
      ]),
    ).toEqual([{ word: 'unbelievable', start: 1, end: 2 }]);
  });

  it('compression ratio is zlib’s, as OpenAI computes it (high for repetitive text)', () => {
    expect(compressionRatio('')).toBe(0);
    expect(compressionRatio('the '.repeat(50))).toBeGreaterThan(2.4);
    expect(compressionRatio('And so my fellow Americans')).toBeLessThan(2.4);
  });
});

describe('json and the stream body', () => {
  it('json carries usage, and logprobs on request', () => {
    expect(jsonTranscript(two, false)).toEqual({
      text: 'Hello, world again.',
      usage: { type: 'duration', seconds: 3663 },
    });
    expect(jsonTranscript(two, true).logprobs![0]).toEqual({
      token: ' Hello',
      bytes: [...Buffer.from(' Hello')],
      logprob: -0.25,
    });
  });

  it('the deltas add up to the done text', () => {
    const events = streamBody(two, false)
      .split('\n\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line.replace(/^data: /, '')));
    expect(events.map((e) => e.type)).toEqual([
      'transcript.text.delta',
      'transcript.text.delta',
      'transcript.text.done',
    ]);
    expect(events[0].delta + events[1].delta).toBe(events[2].text);
    expect(events[2].usage).toEqual({ type: 'duration', seconds: 3663 });
  });
});

describe('/v1 fields', () => {
  const parse = (
    fields: Record<string, string>,
    lists: Record<string, string[]> = {},
    task: 'transcriptions' | 'translations' = 'transcriptions',
  ) => parseOpenAiFields(task, { model: 'whisper-1', ...fields }, lists, true, 'base');
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return [(error as HttpError).status, (error as HttpError).message, (error as HttpError).param];
    }
    throw new Error('accepted');
  };

  it('defaults to json, temperature 0, no prompt, auto language', () => {
    expect(parse({})).toEqual({
      responseFormat: 'json',
      granularities: [],
      stream: false,
      logprobs: false,
      temperature: 0,
      prompt: '',
      language: 'auto',
    });
    expect(
      parse({ response_format: 'verbose_json' }, { timestamp_granularities: ['word', 'segment', 'word'] }),
    ).toMatchObject({ granularities: ['word', 'segment'] });
    expect(parse({ stream: 'true', response_format: 'text' }, { include: ['logprobs'] })).toMatchObject({
      stream: true,
      logprobs: true,
    });
    expect(parse({ temperature: '0.7', prompt: 'Names: Quilter' })).toMatchObject({
      temperature: 0.7,
      prompt: 'Names: Quilter',
    });
  });

  it('refuses in the contract order, naming the field', () => {
    expect(
      refusal(() => parse({ response_format: 'diarized_json' }, { timestamp_granularities: ['x'] })),
    ).toEqual([400, Messages.responseFormat, 'response_format']);
    expect(refusal(() => parse({ stream: 'true' }, { timestamp_granularities: ['word'] }))).toEqual([
      400,
      Messages.granularityFormat,
      'timestamp_granularities',
    ]);
    expect(refusal(() => parse({ stream: 'true', response_format: 'vtt' }))).toEqual([
      400,
      Messages.streaming,
      'stream',
    ]);
    expect(refusal(() => parse({}, { include: ['logprobs'] }, 'translations'))).toEqual([
      400,
      unknownField('include[]'),
      'include',
    ]);
    expect(refusal(() => parse({ response_format: 'verbose_json' }, { include: ['logprobs'] }))).toEqual([
      400,
      Messages.include,
      'include',
    ]);
    for (const temperature of ['-0.1', '1.01', 'abc', '', 'Infinity']) {
      expect(refusal(() => parse({ temperature }))).toEqual([400, Messages.temperature, 'temperature']);
    }
  });

  it('a prompt longer than the decoder reads is accepted, as OpenAI does, and its end is used', () => {
    const start = 'Ngozi Okonjo-Iweala, '.repeat(60);
    const end = 'Quilter, Okonkwo, Świątek.';
    const long = `${start}${end}`;
    expect(long.length).toBeGreaterThan(MAX_PROMPT_CHARS);
    const { prompt } = parse({ prompt: long });
    expect([...prompt]).toHaveLength(MAX_PROMPT_CHARS);
    expect(prompt.endsWith(end)).toBe(true);
    expect(parse({ prompt: end }).prompt).toBe(end);
    // an emoji at the cut is kept whole or left out, never split into half a surrogate pair
    const emoji = parse({ prompt: `${'😀'.repeat(MAX_PROMPT_CHARS + 1)}` }).prompt;
    expect([...emoji]).toHaveLength(MAX_PROMPT_CHARS);
    expect(emoji).toBe('😀'.repeat(MAX_PROMPT_CHARS));
  });
});
