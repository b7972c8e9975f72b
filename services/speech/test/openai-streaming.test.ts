/**
 * `/v1` streaming over SSE through the official `openai` SDK (pinned), on both queue backends:
 * deltas, a stream failing after its first deltas, logprobs, prompt and temperature, retries.
 * The engine is the real whisper.cpp on the synthetic tiny model with the real Silero VAD model.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InferenceError, type InferenceQueue } from '@live-captions/inference';
import { sileroModel } from '@live-captions/test-services/fixtures';
import OpenAI, { toFile } from 'openai';
import request from 'supertest';
import { Messages } from '../src/domain/errors.js';
import { API_KEY, readAudio, redisBackend, startGateway, testConfig } from './helpers/gateway.js';
import {
  AUTH,
  jfk,
  type OpenAiStack,
  openAiStack as stack,
  closeOpenAiStack as stop,
  useVadStacks,
} from './helpers/openai-stack.js';

let vad: OpenAiStack;
let plain: OpenAiStack;
useVadStacks((stacks) => ({ vad, plain } = stacks));

async function collect(stream: AsyncIterable<OpenAI.Audio.TranscriptionStreamEvent>) {
  const events: { event: OpenAI.Audio.TranscriptionStreamEvent; at: number }[] = [];
  for await (const event of stream) events.push({ event, at: performance.now() });
  return events;
}

describe.each(['in-process', 'redis'] as const)('stream=true (%s backend)', (name) => {
  let s: OpenAiStack;

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
