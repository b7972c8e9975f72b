/**
 * A real WebSocket server playing obs-websocket 5's documented handshake and the two requests the
 * overlay uses, for the protocol tests (the real OBS Studio test is e2e/obs): Hello with a
 * challenge and salt, Identify checked with node:crypto (an implementation independent of the
 * client's WebCrypto one), 4009 on a wrong password, 4010 on another RPC version, 4007 for a
 * request before Identify; GetStreamStatus, SendStreamCaption (501 while not streaming), and
 * StreamStateChanged events to clients subscribed to Outputs.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');

export interface FakeObs {
  port: number;
  url: string;
  /** Every message each connection sent, in order. */
  received: { op: number; d: Record<string, unknown> }[][];
  /** captionText of each accepted SendStreamCaption. */
  captions: string[];
  streaming: boolean;
  setStreaming(active: boolean): void;
  /**
   * Runs after a GetStreamStatus answer is computed and before it is sent: what OBS's request
   * threads allow (an event of the main thread overtaking an answer already computed).
   */
  beforeStatusAnswer?: () => void;
  /** Stops listening and drops every client (OBS quits). */
  stop(): Promise<void>;
  /** Listens again on the same port (OBS started again). */
  start(): Promise<void>;
  /** Resolves when `probe` holds after some message. */
  until(probe: () => boolean): Promise<void>;
}

export async function fakeObs(password: string, options: { port?: number } = {}): Promise<FakeObs> {
  let server: WebSocketServer | undefined;
  const identified = new Set<{ socket: WebSocket; events: number }>();
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const send = (socket: WebSocket, op: number, d: Record<string, unknown>) =>
    socket.send(JSON.stringify({ op, d }));

  const obs: FakeObs = {
    port: options.port ?? 0,
    url: '',
    received: [],
    captions: [],
    streaming: false,
    setStreaming(active) {
      obs.streaming = active;
      for (const client of identified) {
        if (!(client.events & (1 << 6))) continue;
        send(client.socket, 5, {
          eventType: 'StreamStateChanged',
          eventIntent: 1 << 6,
          eventData: {
            outputActive: active,
            outputState: active ? 'OBS_WEBSOCKET_OUTPUT_STARTED' : 'OBS_WEBSOCKET_OUTPUT_STOPPED',
          },
        });
      }
    },
    async start() {
      server = new WebSocketServer({ port: obs.port, host: '127.0.0.1' });
      await new Promise<void>((resolve) => server!.once('listening', resolve));
      obs.port = (server.address() as AddressInfo).port;
      obs.url = `ws://127.0.0.1:${obs.port}`;
      server.on('connection', (socket) => {
        const log: { op: number; d: Record<string, unknown> }[] = [];
        obs.received.push(log);
        const challenge = randomBytes(24).toString('base64');
        const salt = randomBytes(24).toString('base64');
        const client = { socket, events: 0 };
        let isIdentified = false;
        socket.on('close', () => identified.delete(client));
        send(socket, 0, {
          obsWebSocketVersion: '5.1.0',
          rpcVersion: 1,
          authentication: { challenge, salt },
        });
        socket.on('message', (data) => {
          const message = JSON.parse(String(data)) as { op: number; d: Record<string, unknown> };
          log.push(message);
          if (message.op === 1) {
            if (message.d.rpcVersion !== 1) return socket.close(4010, 'Unsupported RPC version.');
            if (message.d.authentication !== sha256(sha256(password + salt) + challenge)) {
              return socket.close(4009, 'Authentication failed.');
            }
            isIdentified = true;
            client.events = Number(message.d.eventSubscriptions ?? 0);
            identified.add(client);
            send(socket, 2, { negotiatedRpcVersion: 1 });
          } else if (!isIdentified) {
            socket.close(4007, 'Not identified.');
          } else if (message.op === 6) {
            const { requestType, requestId } = message.d as { requestType: string; requestId: string };
            const answer = (code: number, responseData?: Record<string, unknown>) =>
              send(socket, 7, {
                requestType,
                requestId,
                requestStatus: { result: code === 100, code },
                ...(responseData ? { responseData } : {}),
              });
            if (requestType === 'GetStreamStatus') {
              const outputActive = obs.streaming;
              obs.beforeStatusAnswer?.();
              answer(100, { outputActive });
            } else if (requestType !== 'SendStreamCaption') answer(204);
            else if (!obs.streaming) answer(501);
            else {
              obs.captions.push(String((message.d.requestData as { captionText: string }).captionText));
              answer(100);
            }
          }
          wake();
        });
        wake();
      });
    },
    async stop() {
      for (const client of server?.clients ?? []) client.terminate();
      await new Promise((resolve) => server?.close(resolve));
      identified.clear();
    },
    async until(probe) {
      while (!probe()) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
  await obs.start();
  return obs;
}
