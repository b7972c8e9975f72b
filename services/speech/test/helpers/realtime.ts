/**
 * Realtime test harness: a TLS terminator with a self-signed certificate on loopback (the
 * official SDK only dials wss:), clips as 24 kHz 16-bit PCM in 20 ms chunks, and a collector of
 * server events.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server as TlsServer } from 'node:tls';
import { decodeWav, encodePcm16, REALTIME_RATE, resample, SAMPLE_RATE } from '@live-captions/audio';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { readAudio } from './gateway.js';

export interface TlsTerminator {
  port: number;
  /** The self-signed certificate, to trust in the client. */
  ca: Buffer;
  close(): Promise<void>;
}

/** `https://127.0.0.1:<port>` in front of the gateway's plain port. */
export async function startTlsTerminator(targetPort: number): Promise<TlsTerminator> {
  const dir = mkdtempSync(join(tmpdir(), 'realtime-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const ca = readFileSync(cert);
  const server: TlsServer = createServer({ key: readFileSync(key), cert: ca }, (secure) => {
    const plain = connect(targetPort, '127.0.0.1');
    secure.pipe(plain).pipe(secure);
    secure.on('error', () => plain.destroy());
    plain.on('error', () => secure.destroy());
  });
  rmSync(dir, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    ca,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The official SDK's WebSocket client for a transcription session, through the terminator. */
export function sdkClient(tls: TlsTerminator, apiKey: string): OpenAIRealtimeWS {
  const client = new OpenAI({ apiKey, baseURL: `https://127.0.0.1:${tls.port}/v1` });
  return new OpenAIRealtimeWS({ intent: 'transcription', options: { ca: tls.ca } }, client);
}

/** A clip of the fixtures as 24 kHz 16-bit little-endian PCM (`audio/pcm`). */
export function clipPcm24(file: string): Buffer {
  return Buffer.from(encodePcm16(resample(decodeWav(readAudio(file)).samples, SAMPLE_RATE, REALTIME_RATE)));
}

/** 20 ms of 24 kHz 16-bit PCM. */
export const CHUNK_BYTES = 960;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type ServerEvent = { type: string; event_id: string } & Record<string, unknown>;

/** Every server event of a session, in order, with waits for one of a type. */
export class EventLog {
  readonly events: ServerEvent[] = [];
  private waiters: (() => void)[] = [];

  push(event: ServerEvent): void {
    this.events.push(event);
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  of(type: string): ServerEvent[] {
    return this.events.filter((event) => event.type === type);
  }

  /** Resolves once `count` events of `type` arrived (fails the test after `timeoutMs`). */
  async waitFor(type: string, count = 1, timeoutMs = 20_000): Promise<ServerEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.of(type).length < count) {
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${count} ${type}; got ${this.events.map((e) => e.type).join(', ')}`,
        );
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
    return this.of(type);
  }
}

/** A realtime session of the official SDK, through the TLS terminator, logging every event. */
export interface Session {
  rt: OpenAIRealtimeWS;
  log: EventLog;
  send(event: Record<string, unknown>): void;
  close(): void;
}

export async function openSession(tls: TlsTerminator, apiKey: string): Promise<Session> {
  const rt = sdkClient(tls, apiKey);
  const log = new EventLog();
  rt.on('event', (event) => log.push(event as unknown as ServerEvent));
  // API errors arrive as `error` events in the log; the SDK also raises them here.
  rt.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    rt.socket.once('open', () => resolve());
    rt.socket.once('error', reject);
  });
  return {
    rt,
    log,
    send: (event) => rt.send(event as never),
    close: () => rt.close(),
  };
}

/** Streams PCM in 20 ms appends, `speed` times faster than real time. */
export async function stream(session: Session, pcm: Buffer, speed = 2): Promise<void> {
  for (let at = 0; at < pcm.length; at += CHUNK_BYTES) {
    session.send({
      type: 'input_audio_buffer.append',
      audio: pcm.subarray(at, at + CHUNK_BYTES).toString('base64'),
    });
    await sleep(20 / speed);
  }
}

/** `seconds` of 24 kHz PCM16 silence. */
export const silence = (seconds: number) => Buffer.alloc(Math.round(seconds * 24_000) * 2);

/** The GA `session.update` that turns the server's VAD off: turns end on the client's commits. */
export const MANUAL_TURNS = {
  type: 'session.update',
  session: { type: 'transcription', audio: { input: { turn_detection: null } } },
};
export const COMPLETED = 'conversation.item.input_audio_transcription.completed';
export const FAILED = 'conversation.item.input_audio_transcription.failed';
