/**
 * A browser-safe client of obs-websocket v5 (OBS Studio 28+, Tools -> WebSocket Server Settings),
 * as its protocol document describes it: the server's Hello (op 0), our Identify (op 1, RPC
 * version 1, the authentication string when the server sent a challenge), Identified (op 2);
 * requests (op 6) carry an id and their answers (op 7) are matched by it; events (op 5) for the
 * subscribed categories. It reconnects with a growing delay when OBS goes away (OBS restarted,
 * server switched off) and stops for good on a refused password (close 4009) or RPC version (4010),
 * which retrying cannot change.
 */
import type { SocketConstructor, SocketLike } from '@live-captions/relay-client';

/** obs-websocket's OpCodes. */
export const OBS_OP = {
  hello: 0,
  identify: 1,
  identified: 2,
  event: 5,
  request: 6,
  requestResponse: 7,
} as const;

/** Event categories (EventSubscription): only Outputs, for StreamStateChanged. */
export const OBS_EVENTS_OUTPUTS = 1 << 6;
/** WebSocketCloseCode values after which a reconnect cannot succeed. */
export const OBS_CLOSE_AUTH_FAILED = 4009;
export const OBS_CLOSE_UNSUPPORTED_RPC = 4010;
/** RequestStatus values the captions use. */
export const OBS_STATUS_SUCCESS = 100;
export const OBS_STATUS_OUTPUT_NOT_RUNNING = 501;

/**
 * `connecting`: opening or identifying; `identified`: requests may be sent; `waiting`: OBS is not
 * reachable, the next attempt is scheduled; `auth-failed`: the password was refused (4009);
 * `unsupported`: the RPC version was refused (4010); `closed`: closed by `close()`.
 */
export type ObsConnectionState =
  | 'connecting'
  | 'identified'
  | 'waiting'
  | 'auth-failed'
  | 'unsupported'
  | 'closed';

export interface ObsResponse {
  requestType: string;
  requestId: string;
  requestStatus: { result: boolean; code: number; comment?: string };
  responseData?: Record<string, unknown>;
}

export interface ObsWebSocketOptions {
  /** e.g. `ws://127.0.0.1:4455` */
  url: string;
  /** The server password; unused when the server asks for none. */
  password?: string;
  /** Default: the global `WebSocket`. In Node 20 pass `ws`. */
  WebSocket?: SocketConstructor;
  /** Event categories to receive. @defaultValue OBS_EVENTS_OUTPUTS */
  eventSubscriptions?: number;
  /** Reconnect delays; the last one repeats. @defaultValue [1000, 2000, 4000, 8000] */
  backoffMs?: readonly number[];
  /** An answer not received within this fails the request. @defaultValue 5000 */
  requestTimeoutMs?: number;
  onState?: (state: ObsConnectionState) => void;
  onEvent?: (eventType: string, eventData: Record<string, unknown>) => void;
}

interface ObsMessage {
  op: number;
  d: Record<string, unknown>;
}

const OPEN = 1;
const DEFAULT_BACKOFF_MS = [1000, 2000, 4000, 8000];

const base64 = (data: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(data)));
const sha256Base64 = async (text: string) =>
  base64(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));

/** base64(sha256(base64(sha256(password + salt)) + challenge)), with WebCrypto. */
export async function obsAuthentication(password: string, salt: string, challenge: string): Promise<string> {
  return sha256Base64((await sha256Base64(password + salt)) + challenge);
}

export class ObsRequestError extends Error {
  override name = 'ObsRequestError';
}

export class ObsWebSocket {
  state: ObsConnectionState = 'connecting';
  private readonly Socket: SocketConstructor;
  private socket?: SocketLike;
  private attempt = 0;
  private nextId = 0;
  private retryTimer?: ReturnType<typeof setTimeout>;
  private readonly pending = new Map<
    string,
    {
      resolve: (response: ObsResponse) => void;
      reject: (error: Error) => void;
      timer: ReturnType<typeof setTimeout>;
    }
  >();

  constructor(private readonly options: ObsWebSocketOptions) {
    const found = options.WebSocket ?? (globalThis as { WebSocket?: SocketConstructor }).WebSocket;
    if (!found) throw new TypeError('No WebSocket implementation: pass options.WebSocket');
    this.Socket = found;
    this.open();
  }

  /** Sends a request; resolves with OBS's answer (whatever its status), rejects when none can come. */
  request(requestType: string, requestData?: Record<string, unknown>): Promise<ObsResponse> {
    const socket = this.socket;
    if (this.state !== 'identified' || socket?.readyState !== OPEN) {
      return Promise.reject(new ObsRequestError(`OBS is not connected (${this.state})`));
    }
    this.nextId += 1;
    const requestId = `lc-${this.nextId}`;
    return new Promise<ObsResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new ObsRequestError(`OBS did not answer ${requestType}`));
      }, this.options.requestTimeoutMs ?? 5000);
      this.pending.set(requestId, { resolve, reject, timer });
      socket.send(
        JSON.stringify({
          op: OBS_OP.request,
          d: requestData ? { requestType, requestId, requestData } : { requestType, requestId },
        }),
      );
    });
  }

  /** Closes for good. */
  close(): void {
    clearTimeout(this.retryTimer);
    this.setState('closed');
    this.socket?.close(1000, 'Client closed');
    this.dropSocket();
  }

  private setState(state: ObsConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state);
  }

  private open(): void {
    this.setState('connecting');
    const socket = new this.Socket(this.options.url);
    this.socket = socket;
    socket.onerror = () => {};
    socket.onmessage = (event) => {
      if (this.socket !== socket || typeof event.data !== 'string') return;
      let message: ObsMessage;
      try {
        message = JSON.parse(event.data) as ObsMessage;
      } catch {
        return;
      }
      if (typeof message?.d === 'object' && message.d !== null) void this.onMessage(socket, message);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.dropSocket();
      if (this.state === 'closed') return;
      if (event.code === OBS_CLOSE_AUTH_FAILED) return this.setState('auth-failed');
      if (event.code === OBS_CLOSE_UNSUPPORTED_RPC) return this.setState('unsupported');
      const delays = this.options.backoffMs ?? DEFAULT_BACKOFF_MS;
      const delay = delays[Math.min(this.attempt, delays.length - 1)] ?? 1000;
      this.attempt += 1;
      this.setState('waiting');
      this.retryTimer = setTimeout(() => this.open(), delay);
    };
  }

  private async onMessage(socket: SocketLike, message: ObsMessage): Promise<void> {
    const d = message.d;
    if (message.op === OBS_OP.hello) {
      const auth = d.authentication as { challenge?: unknown; salt?: unknown } | undefined;
      const identify: Record<string, unknown> = {
        rpcVersion: 1,
        eventSubscriptions: this.options.eventSubscriptions ?? OBS_EVENTS_OUTPUTS,
      };
      if (auth && typeof auth.challenge === 'string' && typeof auth.salt === 'string') {
        identify.authentication = await obsAuthentication(
          this.options.password ?? '',
          auth.salt,
          auth.challenge,
        );
      }
      if (this.socket === socket && socket.readyState === OPEN) {
        socket.send(JSON.stringify({ op: OBS_OP.identify, d: identify }));
      }
    } else if (message.op === OBS_OP.identified) {
      this.attempt = 0;
      this.setState('identified');
    } else if (message.op === OBS_OP.requestResponse) {
      const response = d as unknown as ObsResponse;
      const waiting = this.pending.get(String(response.requestId));
      if (!waiting) return;
      clearTimeout(waiting.timer);
      this.pending.delete(String(response.requestId));
      waiting.resolve(response);
    } else if (message.op === OBS_OP.event && typeof d.eventType === 'string') {
      this.options.onEvent?.(d.eventType, (d.eventData as Record<string, unknown> | undefined) ?? {});
    }
  }

  /** Forgets the socket and fails the requests that were waiting on it. */
  private dropSocket(): void {
    this.socket = undefined;
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new ObsRequestError('The connection to OBS closed'));
      this.pending.delete(id);
    }
  }
}
