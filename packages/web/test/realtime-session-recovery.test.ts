// The realtime capture session stopping, reconnecting, and taking changes mid-session (outages and
// refusals: realtime-session-outage.test.ts).
import { afterEach, describe, expect, test } from '@jest/globals';
import { REALTIME_RATE } from '../src/browser/lib/realtime-protocol.js';
import { committed, completed, speechStarted } from './helpers/realtime-events.js';
import {
  closeServer,
  firstConnection,
  frame,
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
  test('stop while an utterance is open: commit, then closes once its transcript is in', async () => {
    server = await realtimeServer();
    const { current, finals } = session(server.url);
    const connection = await firstConnection(server);
    for (let i = 0; i < 10; i++) current.push(frame(i));
    send(connection, speechStarted('open', 0));
    await server.until(() => current.status.inFlight);
    let closed = false;
    const stopped = current.stop().then(() => (closed = true));
    await server.until(() => connection.events.at(-1)?.type === 'input_audio_buffer.commit');
    send(connection, committed('open'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    expect(current.hasPendingAudio).toBe(true);
    send(connection, completed('open', 'end'));
    await stopped;
    expect(finals.map((final) => final.text)).toEqual(['end']);
  });

  test('an utterance the VAD opens after the Stop commit was answered is committed too', async () => {
    server = await realtimeServer();
    const { current, finals } = session(server.url);
    const connection = await firstConnection(server);
    for (let i = 0; i < 10; i++) current.push(frame(i));
    const stopped = current.stop();
    const commits = () => connection.events.filter((event) => event.type === 'input_audio_buffer.commit');
    await server.until(() => commits().length === 1);
    // The VAD had not reached the speech yet: nothing to commit.
    send(connection, {
      type: 'error',
      error: { code: 'input_audio_buffer_commit_empty', message: 'empty', event_id: commits()[0]!.event_id },
    });
    // Then it does, on the last frames: the session commits again instead of waiting for ever.
    send(connection, speechStarted('late', 300));
    await server.until(() => commits().length === 2);
    expect(current.status.state).toBe('draining');
    send(connection, committed('late'));
    send(connection, completed('late', 'tail'));
    await stopped;
    expect(finals.map((final) => final.text)).toEqual(['tail']);

    // The same on a second session, with an utterance too short to commit: it is dropped.
    const second = session(server.url);
    await server.until(() => server!.connections[1]?.events.length === 1);
    const other = server.connections[1]!;
    second.current.push(frame(0));
    const done = second.current.stop();
    const otherCommits = () => other.events.filter((event) => event.type === 'input_audio_buffer.commit');
    await server.until(() => otherCommits().length === 1);
    send(other, committed('a'));
    send(other, speechStarted('b', 50));
    await server.until(() => otherCommits().length === 2);
    send(other, {
      type: 'error',
      error: {
        code: 'input_audio_buffer_commit_empty',
        message: 'empty',
        event_id: otherCommits()[1]!.event_id,
      },
    });
    send(other, completed('a', 'x'));
    await done;
    expect(second.finals.map((final) => final.text)).toEqual(['x']);
  });

  test('a lost connection: reconnects and sends the open utterance again from before its start', async () => {
    server = await realtimeServer();
    const { current, finals } = session(server.url);
    const first = await firstConnection(server);
    for (let i = 0; i < 40; i++) current.push(frame(i)); // 2 s
    await server.until(() => server!.samples(first) >= 1.9 * REALTIME_RATE);
    const sentFirst = Int16Array.from(first.audio.flatMap((chunk) => Array.from(chunk)));
    // An utterance from 1.5 s is open when the connection drops.
    send(first, speechStarted('lost', 1500));
    await server.until(() => current.status.inFlight);
    first.socket.terminate();
    await server.until(() => server!.connections.length === 2 && server!.connections[1]!.events.length > 1);
    const second = server.connections[1]!;
    expect(second.events[0]!.type).toBe('session.update');
    // The replay starts 0.5 s before the utterance and is exactly the audio sent the first time.
    const replayed = Int16Array.from(second.audio.flatMap((chunk) => Array.from(chunk)));
    const from = 1.0 * REALTIME_RATE;
    expect(Array.from(replayed.subarray(0, sentFirst.length - from))).toEqual(
      Array.from(sentFirst.subarray(from)),
    );
    // Capture goes on over the new connection.
    current.push(frame(40));
    current.push(frame(41));
    await server.until(() => server!.samples(second) >= sentFirst.length - from + 2400);
    expect(current.status.state).toBe('capturing');
    expect(current.status.message).toBeUndefined();
    send(second, committed('again'));
    send(second, completed('again', 'x'));
    await server.until(() => finals.length === 1);
  });

  test('a language or task change mid-session is a new session.update', async () => {
    server = await realtimeServer();
    const { current } = session(server.url);
    await firstConnection(server);
    current.configure({ language: 'auto', task: 'translate' });
    await server.until(() => server!.connections[0]!.events.length === 2);
    expect(server.connections[0]!.events[1]).toMatchObject({
      type: 'session.update',
      session: {
        audio: {
          input: { transcription: { model: 'ggml-synthetic-tiny', language: null, task: 'translate' } },
        },
      },
    });
  });

  test('a server error event is shown and capture goes on', async () => {
    server = await realtimeServer();
    const { current } = session(server.url);
    await firstConnection(server);
    send(server.connections[0]!, {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        code: 'invalid_value',
        message: 'Unsupported language',
        param: 'session.audio.input.transcription.language',
      },
    });
    await server.until(() => current.status.message !== undefined);
    expect(current.status).toMatchObject({ state: 'capturing', message: 'Server: Unsupported language' });
  });
});
