import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from '@jest/globals';
import { WebSocket, WebSocketServer } from 'ws';
import type { SessionStatus } from '../src/browser/lib/capture-session.js';
import {
  REALTIME_RATE,
  type RealtimeSocket,
  realtimeUrl,
  sessionUpdate,
} from '../src/browser/lib/realtime-protocol.js';
import { RealtimeSession } from '../src/browser/lib/realtime-session.js';
import type { RealtimeFinal } from '../src/browser/lib/realtime-transcripts.js';

const INPUT_RATE = 16_000;
const FRAME = 800; // the worklet's 50 ms at 16 kHz
const KEY = 'k'.repeat(32);

interface Connection {
  socket: WebSocket;
  protocols: string[];
  events: { type: string; [key: string]: unknown }[];
  /** 24 kHz samples appended on this connection. */
  audio: Int16Array[];
}

/** A scripted realtime server (real WebSocket): records what each connection sends. */
async function realtimeServer(options: { refuse?: () => boolean } = {}) {
  const connections: Connection[] = [];
  const server = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    verifyClient: (_info, done) => (options.refuse?.() ? done(false, 503) : done(true)),
  });
  const waiters: (() => void)[] = [];
  server.on('connection', (socket, request) => {
    const connection: Connection = {
      socket,
      protocols: String(request.headers['sec-websocket-protocol'] ?? '').split(/,\s*/),
      events: [],
      audio: [],
    };
    connections.push(connection);
    socket.on('message', (data) => {
      const event = JSON.parse(String(data));
      connection.events.push(event);
      if (event.type === 'input_audio_buffer.append') {
        const bytes = Buffer.from(event.audio, 'base64');
        connection.audio.push(new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2));
      }
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: realtimeUrl(`http://127.0.0.1:${port}/`),
    connections,
    /** Resolves once `probe` holds (checked after every received event). */
    async until(probe: () => boolean): Promise<void> {
      const deadline = Date.now() + 5000;
      while (!probe()) {
        if (Date.now() > deadline) throw new Error('timed out');
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    samples(connection: Connection): number {
      return connection.audio.reduce((sum, chunk) => sum + chunk.length, 0);
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

type Server = Awaited<ReturnType<typeof realtimeServer>>;
let server: Server | undefined;
afterEach(async () => {
  for (const connection of server?.connections ?? []) connection.socket.terminate();
  await server?.close();
  server = undefined;
});

function session(url: string, extra: Partial<ConstructorParameters<typeof RealtimeSession>[0]> = {}) {
  const finals: RealtimeFinal[] = [];
  const partials: string[] = [];
  const statuses: SessionStatus[] = [];
  const current = new RealtimeSession({
    url,
    apiKey: KEY,
    inputRate: INPUT_RATE,
    model: 'ggml-synthetic-tiny',
    language: 'en',
    connect: (address, protocols) => new WebSocket(address, protocols) as unknown as RealtimeSocket,
    retry: { delaysMs: [1, 1, 1], sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
    onFinal: (final) => finals.push(final),
    onPartial: (text) => partials.push(text),
    onStatus: (status) => statuses.push(status),
    ...extra,
  });
  return { current, finals, partials, statuses };
}

/** A quiet tone (not silence) so that every sample is distinguishable from padding. */
const frame = (index: number) =>
  Float32Array.from(
    { length: FRAME },
    (_, i) => 0.1 * Math.sin((2 * Math.PI * 200 * (index * FRAME + i)) / INPUT_RATE),
  );

const send = (connection: Connection, event: Record<string, unknown>) =>
  connection.socket.send(JSON.stringify(event));

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

    send(connection, { type: 'input_audio_buffer.speech_started', item_id: 'item_1', audio_start_ms: 100 });
    send(connection, {
      type: 'conversation.item.input_audio_transcription.delta',
      item_id: 'item_1',
      delta: ' Hel',
    });
    send(connection, {
      type: 'conversation.item.input_audio_transcription.delta',
      item_id: 'item_1',
      delta: 'lo',
    });
    await server.until(() => partials.at(-1) === 'Hello');
    send(connection, { type: 'input_audio_buffer.speech_stopped', item_id: 'item_1', audio_end_ms: 900 });
    send(connection, { type: 'input_audio_buffer.committed', item_id: 'item_1', previous_item_id: null });
    send(connection, {
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: 'item_1',
      transcript: ' Hello.',
    });
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

  test('stop while an utterance is open: commit, then closes once its transcript is in', async () => {
    server = await realtimeServer();
    const { current, finals } = session(server.url);
    await server.until(() => server!.connections[0]?.events.length === 1);
    const connection = server.connections[0]!;
    for (let i = 0; i < 10; i++) current.push(frame(i));
    send(connection, { type: 'input_audio_buffer.speech_started', item_id: 'open', audio_start_ms: 0 });
    await server.until(() => current.status.inFlight);
    let closed = false;
    const stopped = current.stop().then(() => (closed = true));
    await server.until(() => connection.events.at(-1)?.type === 'input_audio_buffer.commit');
    send(connection, { type: 'input_audio_buffer.committed', item_id: 'open', previous_item_id: null });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    expect(current.hasPendingAudio).toBe(true);
    send(connection, {
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: 'open',
      transcript: 'end',
    });
    await stopped;
    expect(finals.map((final) => final.text)).toEqual(['end']);
  });

  test('an utterance the VAD opens after the Stop commit was answered is committed too', async () => {
    server = await realtimeServer();
    const { current, finals } = session(server.url);
    await server.until(() => server!.connections[0]?.events.length === 1);
    const connection = server.connections[0]!;
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
    send(connection, { type: 'input_audio_buffer.speech_started', item_id: 'late', audio_start_ms: 300 });
    await server.until(() => commits().length === 2);
    expect(current.status.state).toBe('draining');
    send(connection, { type: 'input_audio_buffer.committed', item_id: 'late', previous_item_id: null });
    send(connection, {
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: 'late',
      transcript: 'tail',
    });
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
    send(other, { type: 'input_audio_buffer.committed', item_id: 'a', previous_item_id: null });
    send(other, { type: 'input_audio_buffer.speech_started', item_id: 'b', audio_start_ms: 50 });
    await server.until(() => otherCommits().length === 2);
    send(other, {
      type: 'error',
      error: {
        code: 'input_audio_buffer_commit_empty',
        message: 'empty',
        event_id: otherCommits()[1]!.event_id,
      },
    });
    send(other, {
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: 'a',
      transcript: 'x',
    });
    await done;
    expect(second.finals.map((final) => final.text)).toEqual(['x']);
  });

  test('a lost connection: reconnects and sends the open utterance again from before its start', async () => {
    server = await realtimeServer();
    const { current, finals } = session(server.url);
    await server.until(() => server!.connections[0]?.events.length === 1);
    const first = server.connections[0]!;
    for (let i = 0; i < 40; i++) current.push(frame(i)); // 2 s
    await server.until(() => server!.samples(first) >= 1.9 * REALTIME_RATE);
    const sentFirst = Int16Array.from(first.audio.flatMap((chunk) => Array.from(chunk)));
    // An utterance from 1.5 s is open when the connection drops.
    send(first, { type: 'input_audio_buffer.speech_started', item_id: 'lost', audio_start_ms: 1500 });
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
    send(second, { type: 'input_audio_buffer.committed', item_id: 'again', previous_item_id: null });
    send(second, {
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: 'again',
      transcript: 'x',
    });
    await server.until(() => finals.length === 1);
  });

  test('reconnects exhausted: failed with the audio kept; Retry sends it and finishes', async () => {
    let refusing = false;
    server = await realtimeServer({ refuse: () => refusing });
    const { current, statuses } = session(server.url);
    await server.until(() => server!.connections[0]?.events.length === 1);
    for (let i = 0; i < 10; i++) current.push(frame(i));
    await server.until(() => server!.samples(server!.connections[0]!) >= 0.4 * REALTIME_RATE);
    send(server.connections[0]!, {
      type: 'input_audio_buffer.speech_started',
      item_id: 'a',
      audio_start_ms: 0,
    });
    await server.until(() => current.status.inFlight);
    refusing = true;
    server.connections[0]!.socket.terminate();
    await current.whenIdle();
    expect(current.status.state).toBe('failed');
    expect(
      statuses
        .filter((status) => status.message?.startsWith('Retrying ('))
        .map((s) => s.message!.slice(0, 13)),
    ).toEqual(['Retrying (1/3', 'Retrying (2/3', 'Retrying (3/3']);
    expect(current.hasPendingAudio).toBe(true);
    expect(current.status.bufferedSeconds).toBeCloseTo(0.5, 1);

    refusing = false;
    const retried = current.retry();
    await server.until(() => server!.connections[1]?.events.at(-1)?.type === 'input_audio_buffer.commit');
    const again = server.connections[1]!;
    expect(server.samples(again)).toBe(REALTIME_RATE / 2);
    send(again, { type: 'error', error: { message: 'empty', event_id: again.events.at(-1)!.event_id } });
    await retried;
    expect(current.status.state).toBe('closed');
  });

  test('Discard after a failure drops the audio and closes', async () => {
    server = await realtimeServer({ refuse: () => true });
    const { current } = session(server.url);
    current.push(frame(0));
    await current.whenIdle();
    expect(current.status.state).toBe('failed');
    expect(current.status.message).toBe('the realtime connection could not be opened (code 1006)');
    await current.discard();
    expect(current.status).toMatchObject({ state: 'closed', bufferedSeconds: 0 });
  });

  test('a language or task change mid-session is a new session.update', async () => {
    server = await realtimeServer();
    const { current } = session(server.url);
    await server.until(() => server!.connections[0]?.events.length === 1);
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
    await server.until(() => server!.connections[0]?.events.length === 1);
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
