// /v1/realtime refusals before the upgrade (token, origin, intent, capacity, no VAD), the
// session limits (message size, idle time, uncommitted audio), and a session on the Redis
// backend: plain `ws` clients, so status codes and close codes are seen as they are.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { sileroModel } from '@live-captions/test-services/fixtures';
import { WebSocket } from 'ws';
import { sileroVad } from '../src/adapters/vad.js';
import {
  API_KEY,
  type Backend,
  inProcessBackend,
  type RunningGateway,
  redisBackend,
  startGateway,
  testConfig,
} from './helpers/gateway.js';
import { EventLog, type ServerEvent } from './helpers/realtime.js';

jest.setTimeout(60_000);

const ALLOWED = 'https://captions.example.org';
let backend: Backend;
let gateway: RunningGateway;

const vad = () => sileroVad(Promise.resolve(sileroModel()));

beforeAll(async () => {
  backend = await inProcessBackend('tiny');
  const base = testConfig({ apiKey: API_KEY, allowedOrigins: [ALLOWED], maxStreams: 2 });
  gateway = await startGateway({
    queue: backend.queue,
    vad: vad(),
    config: {
      ...base,
      realtime: { ...base.realtime, maxMessageBytes: 64 * 1024, idleTimeoutSeconds: 1, maxBufferSeconds: 1 },
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await backend?.close();
});

interface Outcome {
  status?: number;
  headers?: Record<string, unknown>;
  body?: string;
  ws?: WebSocket;
  log?: EventLog;
}

/** Dials the gateway; resolves with the refusal (status, body) or the open socket and its events. */
function dial(
  port: number,
  options: { path?: string; headers?: Record<string, string>; protocols?: string[] } = {},
): Promise<Outcome> {
  const path = options.path ?? '/v1/realtime?intent=transcription';
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, options.protocols ?? [], {
      headers: options.headers ?? {},
    });
    const log = new EventLog();
    ws.on('message', (data) => log.push(JSON.parse(String(data)) as ServerEvent));
    ws.once('open', () => resolve({ ws, log }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    ws.once('error', reject);
  });
}

const bearer = { Authorization: `Bearer ${API_KEY}` };
const closed = (ws: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );

describe('upgrade refusals', () => {
  it('refuses a missing or wrong token with 401 and the OpenAI error object', async () => {
    const attempts: Record<string, string>[] = [{}, { Authorization: 'Bearer wrong-key-0123456789abcdefgh' }];
    for (const headers of attempts) {
      const outcome = await dial(gateway.port, { headers });
      expect(outcome.status).toBe(401);
      expect(outcome.headers!['www-authenticate']).toBe('Bearer');
      expect(JSON.parse(outcome.body!)).toMatchObject({
        error: { type: 'authentication_error', code: 'invalid_api_key' },
      });
    }
    const wrongProtocol = await dial(gateway.port, {
      protocols: ['realtime', 'openai-insecure-api-key.wrong-key-0123456789abcdef'],
    });
    expect(wrongProtocol.status).toBe(401);
  });

  it('takes the key from the subprotocol (browsers) and echoes only `realtime`', async () => {
    const outcome = await dial(gateway.port, {
      protocols: ['realtime', `openai-insecure-api-key.${API_KEY}`],
    });
    expect(outcome.ws!.protocol).toBe('realtime');
    const [created] = await outcome.log!.waitFor('session.created');
    expect(created!.event_id).toEqual(expect.any(String));
    outcome.ws!.close();
  });

  it('greets beta clients (OpenAI-Beta: realtime=v1) with transcription_session.created', async () => {
    const outcome = await dial(gateway.port, { headers: { ...bearer, 'OpenAI-Beta': 'realtime=v1' } });
    const [created] = await outcome.log!.waitFor('transcription_session.created');
    expect(created!.session).toMatchObject({
      input_audio_format: 'pcm16',
      turn_detection: { type: 'server_vad' },
    });
    outcome.ws!.close();
  });

  it('applies the origin rules: foreign 403, allowed and own origin accepted', async () => {
    const foreign = await dial(gateway.port, { headers: { ...bearer, Origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body!).error).toMatchObject({ type: 'permission_error' });
    for (const origin of [ALLOWED, `http://127.0.0.1:${gateway.port}`]) {
      const outcome = await dial(gateway.port, { headers: { ...bearer, Origin: origin } });
      expect(outcome.ws).toBeDefined();
      await outcome.log!.waitFor('session.created');
      outcome.ws!.close();
    }
  });

  it('serves only the transcription intent', async () => {
    const outcome = await dial(gateway.port, { path: '/v1/realtime?model=gpt-realtime', headers: bearer });
    expect(outcome.status).toBe(400);
    expect(JSON.parse(outcome.body!).error).toMatchObject({ param: 'intent' });
  });

  it('counts each connection as a stream session: 429 beyond max_streams, room again after a close', async () => {
    const first = await dial(gateway.port, { headers: bearer });
    const second = await dial(gateway.port, { headers: bearer });
    const third = await dial(gateway.port, { headers: bearer });
    expect(third.status).toBe(429);
    expect(third.headers!['retry-after']).toBe('2');
    expect(JSON.parse(third.body!).error).toMatchObject({ code: 'stream_capacity' });
    const gone = closed(first.ws!);
    first.ws!.close();
    await gone;
    // The session is released once the connection's VAD is idle.
    let again: Outcome = {};
    for (let attempt = 0; attempt < 20 && !again.ws; attempt += 1) {
      again = await dial(gateway.port, { headers: bearer });
      if (!again.ws) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(again.ws).toBeDefined();
    second.ws!.close();
    again.ws!.close();
  });

  it('answers 503 while no VAD model is available, and /health says so', async () => {
    const health = async (port: number) =>
      (await (await fetch(`http://127.0.0.1:${port}/health`, { headers: bearer })).json()) as {
        realtime: unknown;
      };
    expect((await health(gateway.port)).realtime).toEqual({ available: true, reason: null });
    const noVad = await startGateway({ queue: backend.queue, config: testConfig() });
    const missing = await startGateway({
      queue: backend.queue,
      config: testConfig({ apiKey: API_KEY }),
      vad: sileroVad(Promise.resolve('/nonexistent/ggml-silero.bin')),
    });
    try {
      const outcome = await dial(noVad.port);
      expect(outcome.status).toBe(503);
      expect(outcome.headers!['retry-after']).toBe('5');
      expect((await health(noVad.port)).realtime).toEqual({
        available: false,
        reason: 'the VAD model is not loaded (no VAD model configured)',
      });
      // A configured file that is not there: refused on the same condition /health reports.
      expect((await dial(missing.port, { headers: bearer })).status).toBe(503);
      expect((await health(missing.port)).realtime).toEqual({
        available: false,
        reason: 'the VAD model is not loaded (VAD model /nonexistent/ggml-silero.bin not found)',
      });
    } finally {
      await noVad.close();
      await missing.close();
    }
  });
});

describe('session limits', () => {
  it('ends a session whose message exceeds the size limit with an error event and 1009', async () => {
    const { ws, log } = await dial(gateway.port, { headers: bearer });
    const end = closed(ws!);
    ws!.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'A'.repeat(100_000) }));
    expect(await end).toMatchObject({ code: 1009 });
    expect(log!.of('error')[0]!.error).toMatchObject({ code: 'message_too_large' });
  });

  it('closes an idle session after the idle timeout with an error event', async () => {
    const { ws, log } = await dial(gateway.port, { headers: bearer });
    expect(await closed(ws!)).toMatchObject({ code: 1008, reason: 'idle_timeout' });
    expect(log!.of('error')[0]!.error).toMatchObject({ code: 'idle_timeout' });
  });

  it('ends a manual session that buffers more uncommitted audio than allowed', async () => {
    const { ws, log } = await dial(gateway.port, { headers: bearer });
    ws!.send(
      JSON.stringify({
        type: 'session.update',
        session: { type: 'transcription', audio: { input: { turn_detection: null } } },
      }),
    );
    await log!.waitFor('session.updated');
    const end = closed(ws!);
    // 1.2 s of 24 kHz PCM against a 1 s limit.
    const chunk = Buffer.alloc(24_000 * 2 * 0.2).toString('base64');
    for (let i = 0; i < 6; i += 1)
      ws!.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: chunk }));
    expect(await end).toMatchObject({ code: 1008, reason: 'input_audio_buffer_full' });
    expect(log!.of('error')[0]!.error).toMatchObject({ code: 'input_audio_buffer_full' });
  });
});

describe('on the Redis backend', () => {
  it('decodes a committed buffer through BullMQ', async () => {
    const redis = await redisBackend('tiny');
    const onRedis = await startGateway({ queue: redis.queue, vad: vad() });
    try {
      const { ws, log } = await dial(onRedis.port);
      ws!.send(
        JSON.stringify({
          type: 'session.update',
          session: { type: 'transcription', audio: { input: { turn_detection: null } } },
        }),
      );
      ws!.send(
        JSON.stringify({
          type: 'input_audio_buffer.append',
          audio: Buffer.alloc(24_000 * 2).toString('base64'),
        }),
      );
      ws!.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
      const [completed] = await log!.waitFor('conversation.item.input_audio_transcription.completed');
      expect(completed!.usage).toEqual({ type: 'duration', seconds: 1 });
      ws!.close();
    } finally {
      await onRedis.close();
      await redis.close();
    }
  });
});
