/**
 * `GET /v1/realtime?intent=transcription`: OpenAI's Realtime transcription over WebSocket. The
 * upgrade is checked like any API request (token from `Authorization` or, for browsers, the
 * `openai-insecure-api-key.<key>` subprotocol; origin rules; shutdown; model loaded; a stream
 * session under `max_streams`), refusals answered as HTTP responses before the upgrade. The
 * protocol itself lives in `domain/realtime/transcription-session.ts`.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { MAX_CLIP_SAMPLES, SAMPLE_RATE } from '@live-captions/audio';
import type { EngineInfo } from '@live-captions/protocol';
import type { Logger } from '@live-captions/runtime';
import { type WebSocket, WebSocketServer } from 'ws';
import type { OwnedVad, VadSource } from '../adapters/vad.js';
import type { RealtimeConfig } from '../config.js';
import { bearerChecker, originAllowed } from '../domain/access.js';
import type { Admission } from '../domain/admission.js';
import { REALTIME_STREAM_PREFIX } from '../domain/decode-path.js';
import { HttpError, Messages } from '../domain/errors.js';
import { problem, type RealtimeProblem } from '../domain/realtime/events.js';
import { TranscriptionSession } from '../domain/realtime/transcription-session.js';
import { realtimePorts } from './realtime-ports.js';

export const REALTIME_PATH = '/v1/realtime';
const KEY_PROTOCOL = 'openai-insecure-api-key.';
/** Messages up to this many times the limit are read and refused with an event; beyond, cut. */
const HARD_LIMIT_FACTOR = 4;

export interface RealtimeOptions {
  admission: Admission;
  apiKey: string | undefined;
  allowedOrigins: ReadonlySet<string>;
  config: RealtimeConfig;
  vad: VadSource;
  logger: Logger;
  state: { closing: boolean };
  /** Express's compiled `trust proxy`: whose X-Forwarded-Proto is believed. */
  trustProxy: (address: string, hop: number) => boolean;
}

export interface RealtimeGateway {
  /** Serves upgrades of `server`. */
  attach(server: Server): void;
  /** Shutdown: every session gets an `error` event and closes with 1012. */
  closeAll(): void;
  readonly size: number;
}

function refuse(socket: Duplex, error: HttpError): void {
  const body = JSON.stringify({
    detail: error.message,
    error: { message: error.message, type: error.type, param: error.param, code: error.code },
  });
  const headers = [
    `HTTP/1.1 ${error.status} ${error.status === 401 ? 'Unauthorized' : 'Refused'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
    ...(error.retryAfter !== undefined ? [`Retry-After: ${error.retryAfter}`] : []),
    ...(error.status === 401 ? ['WWW-Authenticate: Bearer'] : []),
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

const offered = (req: IncomingMessage) =>
  (req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');

export function realtimeGateway(options: RealtimeOptions): RealtimeGateway {
  const { admission, config, logger } = options;
  const check = options.apiKey === undefined ? undefined : bearerChecker(options.apiKey);
  const live = new Set<{ ws: WebSocket; session: TranscriptionSession }>();
  const load = { inflight: 0 };
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: config.maxMessageBytes * HARD_LIMIT_FACTOR,
    perMessageDeflate: false,
    // Browsers offer `realtime` with the key; the key itself is never echoed.
    handleProtocols: (protocols) => (protocols.has('realtime') ? 'realtime' : false),
  });

  function ownOrigin(req: IncomingMessage): string {
    const forwarded = String(req.headers['x-forwarded-proto'] ?? '')
      .split(',')[0]
      ?.trim();
    const trusted = forwarded && options.trustProxy(req.socket.remoteAddress ?? '', 0);
    const protocol = trusted ? forwarded : (req.socket as TLSSocket).encrypted ? 'https' : 'http';
    return `${protocol}://${(req.headers.host ?? '').toLowerCase()}`;
  }

  /** Token (401) then origin (403), as `apiGuards` orders them. */
  function authorize(req: IncomingMessage): void {
    if (check) {
      const key = offered(req).find((value) => value.startsWith(KEY_PROTOCOL));
      const authorization = key ? `Bearer ${key.slice(KEY_PROTOCOL.length)}` : req.headers.authorization;
      if (!check(authorization)) throw new HttpError(401, Messages.unauthorized);
    }
    if (!originAllowed(req.headers.origin, ownOrigin(req), options.allowedOrigins)) {
      throw new HttpError(403, Messages.forbidden);
    }
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (url.pathname !== REALTIME_PATH) throw new HttpError(404, Messages.notFound);
    if (options.state.closing) throw new HttpError(503, Messages.restarting, { retryAfter: 1 });
    authorize(req);
    if (url.searchParams.get('intent') !== 'transcription') {
      throw new HttpError(400, Messages.realtimeIntent, { param: 'intent' });
    }
    const engine = await admission.engine();
    const admitted = await admission.admit(`${REALTIME_STREAM_PREFIX}${randomUUID()}`, true);
    let vad: OwnedVad;
    try {
      vad = await options.vad.open();
    } catch (error) {
      await admission.release(admitted);
      logger.warn({ err: error }, 'realtime session refused: VAD unavailable');
      throw new HttpError(503, Messages.realtimeUnavailable, { retryAfter: 5 });
    }
    if (socket.destroyed) {
      vad.free();
      await admission.release(admitted);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req, engine, admitted, vad));
  }

  function serve(
    ws: WebSocket,
    req: IncomingMessage,
    engine: EngineInfo,
    admitted: Awaited<ReturnType<Admission['admit']>>,
    vad: OwnedVad,
  ): void {
    const correlationId = randomUUID();
    const opened = Date.now();
    const beta = String(req.headers['openai-beta'] ?? '').includes('realtime=v1');
    const ports = realtimePorts({
      admission,
      engine,
      ws,
      streamId: admitted.id,
      correlationId,
      logger,
      load,
      lagBoundSeconds: config.lagBoundSeconds,
    });
    const session = new TranscriptionSession(
      ports,
      vad,
      {
        maxBufferSamples: config.maxBufferSeconds * SAMPLE_RATE,
        maxUtteranceSamples: MAX_CLIP_SAMPLES,
        partialIntervalSamples: SAMPLE_RATE,
      },
      beta,
    );
    const entry = { ws, session };
    live.add(entry);
    const end = (value: RealtimeProblem, code: number) => {
      session.fail(value);
      ws.close(code, value.code);
    };
    session.onFatal = (value) => end(value, value.type === 'server_error' ? 1011 : 1008);
    let idle: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(
        () =>
          end(
            problem(
              'idle_timeout',
              `No client event for ${config.idleTimeoutSeconds} s: closing the session`,
            ),
            1008,
          ),
        config.idleTimeoutSeconds * 1000,
      );
    };
    touch();
    logger.info({ correlationId, session: session.id, beta }, 'realtime session opened');
    session.start();

    ws.on('message', (data: Buffer, isBinary: boolean) => {
      touch();
      if (data.length > config.maxMessageBytes) {
        return end(
          problem('message_too_large', `Client events are limited to ${config.maxMessageBytes} bytes`),
          1009,
        );
      }
      if (isBinary) {
        return session.fail(problem('invalid_event', 'Events are JSON text messages, not binary'));
      }
      session.handle(data.toString('utf8'));
    });
    ws.on('error', (error) => logger.debug({ correlationId, err: error }, 'realtime socket error'));
    ws.once('close', (code) => {
      clearTimeout(idle);
      live.delete(entry);
      void session.close().then(async () => {
        vad.free();
        admission.lag.forget(admitted.id);
        await admission.release(admitted);
        const seconds = Math.round((Date.now() - opened) / 100) / 10;
        logger.info({ correlationId, session: session.id, code, seconds }, 'realtime session closed');
      });
    });
  }

  return {
    attach(server) {
      server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
        socket.on('error', () => undefined);
        upgrade(req, socket, head).catch((error: unknown) => {
          if (error instanceof HttpError) return refuse(socket, error);
          logger.error({ err: error }, 'realtime upgrade failed');
          refuse(socket, new HttpError(500, 'Internal server error'));
        });
      });
    },
    closeAll() {
      for (const { ws, session } of live) {
        session.fail(problem('server_shutdown', Messages.restarting, { type: 'server_error' }));
        ws.close(1012, 'server_shutdown');
      }
    },
    get size() {
      return live.size;
    },
  };
}
