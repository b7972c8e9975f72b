/**
 * What the container test sends: transcription bodies, WebSocket upgrades, and requests made from
 * inside the edge network (as Traefik, from its fixed address, or as anyone else).
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { join } from 'node:path';
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
};

export const EVENT = {
  title: 'Container test',
  start_date: '2030-07-01 18:00:00',
  end_date: '2030-07-01 21:00:00',
};
export const PRODUCTION_EVENT = { ...EVENT, title: 'Container test (production)' };

/** A mono 16 kHz 16-bit WAV of a 440 Hz tone (the synthetic model says "test" for any audio). */
function wav(seconds: number): Buffer {
  const samples = 16000 * seconds;
  const out = Buffer.alloc(44 + samples * 2);
  out.write('RIFF', 0);
  out.writeUInt32LE(36 + samples * 2, 4);
  out.write('WAVEfmt ', 8);
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(16000, 24);
  out.writeUInt32LE(32000, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write('data', 36);
  out.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) {
    out.writeInt16LE(Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 440 * i) / 16000)), 44 + i * 2);
  }
  return out;
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
    wav(2),
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
