// The realtime capture session: its URL and settings, and streaming (the server: helpers/realtime-server.ts).
import { afterEach, describe, expect, test } from '@jest/globals';
import { WebSocket } from 'ws';
import { REALTIME_RATE, realtimeUrl, sessionUpdate } from '../src/browser/lib/realtime-protocol.js';
import { committed, completed, delta, speechStarted, speechStopped } from './helpers/realtime-events.js';
import {
  closeServer,
  frame,
  KEY,
  realtimeServer,
  type Server,
  send,
  session,
} from './helpers/realtime-server.js';

let server: Server | undefined;
afterEach(async () => {
  await closeServer(server);
  server = undefined;
});

describe('RealtimeSession', () => {
  test('URL, subprotocols and the GA session.update', () => {
    expect(realtimeUrl('https://capture.example.org/')).toBe(
      'wss://capture.example.org/v1/realtime?intent=transcription',
    );
    expect(
      sessionUpdate({ model: 'm', language: 'auto', turnDetection: { silence_duration_ms: 500 } }),
    ).toEqual({
      type: 'session.update',
      session: {
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24_000 },
            transcription: { model: 'm' },
            turn_detection: { type: 'server_vad', silence_duration_ms: 500 },
          },
        },
      },
    });
  });

  test('auto-detection: no language at the start, null when a session switches to it', () => {
    expect(sessionUpdate({ model: 'm', language: 'auto' }).session.audio.input.transcription).toEqual({
      model: 'm',
    });
    expect(sessionUpdate({ model: 'm', language: 'auto' }, true).session.audio.input.transcription).toEqual({
      model: 'm',
      language: null,
    });
  });

  test('translation is the task extension, sent only when asked for', () => {
    const update = sessionUpdate({ model: 'm', language: 'de', task: 'translate' });
    expect(update.session.audio.input.transcription).toEqual({
      model: 'm',
      language: 'de',
      task: 'translate',
    });
  });

  test('streams 24 kHz PCM16 in ~100 ms appends, shows deltas, publishes completed, stops after the commit', async () => {
    server = await realtimeServer();
    const { current, finals, partials } = session(server.url);
    await server.until(() => server!.connections.length === 1 && server!.connections[0]!.events.length > 0);
    const connection = server.connections[0]!;
    expect(connection.protocols).toEqual(['realtime', `openai-insecure-api-key.${KEY}`]);
    expect(connection.events[0]).toEqual(sessionUpdate({ model: 'ggml-synthetic-tiny', language: 'en' }));

    for (let i = 0; i < 20; i++) current.push(frame(i)); // 1 s
    await server.until(() => server!.samples(connection) >= 0.9 * REALTIME_RATE);
    const appends = connection.audio.map((chunk) => chunk.length);
    // Two 50 ms frames per append (100 ms at 24 kHz, minus the filter's look-ahead on the first).
    for (const length of appends.slice(1)) expect(length).toBe(2400);

    send(connection, speechStarted('item_1', 100));
    send(connection, delta('item_1', ' Hel'));
    send(connection, delta('item_1', 'lo'));
    await server.until(() => partials.at(-1) === 'Hello');
    send(connection, speechStopped('item_1', 900));
    send(connection, committed('item_1'));
    send(connection, completed('item_1', ' Hello.'));
    await server.until(() => finals.length === 1);
    expect(finals[0]).toMatchObject({ itemId: 'item_1', text: 'Hello.' });
    expect(partials.at(-1)).toBe('');

    const stopped = current.stop();
    await server.until(() => connection.events.some((event) => event.type === 'input_audio_buffer.commit'));
    // Every sample went out: 1 s in, 1 s out at 24 kHz.
    expect(server.samples(connection)).toBe(REALTIME_RATE);
    const commit = connection.events.at(-1)!;
    expect(current.status.state).toBe('draining');
    send(connection, {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        code: 'input_audio_buffer_commit_empty',
        message: 'empty',
        event_id: commit.event_id,
      },
    });
    await stopped;
    expect(current.status).toMatchObject({ state: 'closed', bufferedSeconds: 0 });
    await server.until(() => connection.socket.readyState === WebSocket.CLOSED);
  });
});
