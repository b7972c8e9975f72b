import {
  RELAY_FATAL_CLOSE_CODES,
  type RelayJoin,
  type RelayJoined,
  type RelayServerFrame,
} from '@live-captions/protocol';
import { checkServerFrame } from './server-frames.js';

/** The part of the WebSocket API the client uses: the browser's `WebSocket` and `ws` both have it. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type SocketConstructor = new (url: string) => SocketLike;

/**
 * `connecting`: opening or joining; `joined`: ready; `waiting`: reconnecting after a backoff;
 * `stopped`: refused by the relay (1003/1007/1008/1009), nothing is retried until `reconnect()`;
 * `closed`: closed by `close()`.
 */
export type RelayClientState = 'connecting' | 'joined' | 'waiting' | 'stopped' | 'closed';

export interface RelayClientEvent {
  state: RelayClientState;
  /** Close code and reason of the socket that ended (waiting, stopped). */
  code?: number;
  reason?: string;
  /** Milliseconds until the next attempt (waiting). */
  retryInMs?: number;
}

export interface RelayConnectionOptions {
  /** Relay WebSocket URL, e.g. `ws://localhost:8080/ws`. */
  url: string;
  room: string;
  token: string;
  /** WebSocket implementation; default: the global `WebSocket` (browsers, Node 22). In Node 20 pass `ws`. */
  WebSocket?: SocketConstructor;
  /** First reconnect delay, doubled per failed attempt. @defaultValue 500 */
  backoffMs?: number;
  /** Longest reconnect delay. @defaultValue 10000 */
  maxBackoffMs?: number;
  onState?: (event: RelayClientEvent) => void;
}

const OPEN = 1;

/**
 * The client's close code for a relay that broke protocol 2: 1002 (protocol error) as an
 * application code, since a browser may only close with 1000 or 3000-4999.
 */
export const RELAY_PROTOCOL_FAULT = 4002;

function resolveSocket(given?: SocketConstructor): SocketConstructor {
  const found = given ?? (globalThis as { WebSocket?: SocketConstructor }).WebSocket;
  if (!found)
    throw new TypeError('No WebSocket implementation: pass options.WebSocket (in Node: the `ws` package)');
  return found;
}

/**
 * Socket lifecycle shared by the publisher and the reader: join, reconnect with backoff, stop on refusal.
 * Generic over the options so that each subclass reads its own through `this.options`.
 */
export abstract class RelayConnection<Options extends RelayConnectionOptions = RelayConnectionOptions> {
  state: RelayClientState = 'connecting';
  protected readonly options: Options;
  private readonly Socket: SocketConstructor;
  private socket?: SocketLike;
  private attempt = 0;
  /** The last socket ended on a protocol fault: its successor's join does not reset the backoff. */
  private faulted = false;
  private retryTimer?: ReturnType<typeof setTimeout>;

  constructor(options: Options) {
    this.options = options;
    this.Socket = resolveSocket(options.WebSocket);
  }

  /** Opens the socket; called by the subclasses' constructors. */
  protected start(): void {
    this.open();
  }

  /** Closes for good. */
  close(): void {
    clearTimeout(this.retryTimer);
    this.setState({ state: 'closed' });
    this.socket?.close(1000, 'Client closed');
    this.socket = undefined;
  }

  /** Tries again after `stopped` (e.g. with a corrected token) or skips a pending backoff. */
  reconnect(): void {
    if (this.state === 'closed') return;
    clearTimeout(this.retryTimer);
    this.socket?.close(1000, 'Reconnecting');
    this.open();
  }

  protected abstract joinFrame(): RelayJoin;
  protected abstract onJoined(joined: RelayJoined): void;
  protected abstract onFrame(frame: RelayServerFrame): void;
  protected onDisconnected(): void {}

  /** Sends on the joined socket; `false` when there is none. */
  protected sendFrame(value: unknown): boolean {
    if (this.state !== 'joined' || this.socket?.readyState !== OPEN) return false;
    this.socket.send(JSON.stringify(value));
    return true;
  }

  protected setState(event: RelayClientEvent): void {
    this.state = event.state;
    this.options.onState?.(event);
  }

  private open(): void {
    this.setState({ state: 'connecting' });
    const socket = new this.Socket(this.options.url);
    this.socket = socket;
    let joined = false;
    socket.onopen = () => {
      if (this.socket === socket) socket.send(JSON.stringify(this.joinFrame()));
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      const checked = checkServerFrame(event.data);
      if (!checked.ok) {
        this.fault(socket, checked.fault);
        return;
      }
      const frame = checked.frame;
      if (!joined && 'joined' in frame) {
        joined = true;
        if (!this.faulted) this.attempt = 0;
        this.setState({ state: 'joined' });
        this.onJoined(frame);
      } else if (joined) {
        this.onFrame(frame);
      }
    };
    socket.onerror = () => {};
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.faulted = false;
      this.ended(event.code, event.reason);
    };
  }

  /**
   * A frame that is not protocol 2's: rather than act on it (a wrong caption, a lost ack), the
   * socket is dropped and joined again after the backoff, the fault as the `waiting` event's
   * reason. The backoff keeps growing while every socket meets a fault (a relay of another
   * version, a bad frame replayed from its history), so such a relay is not retried in a loop.
   */
  private fault(socket: SocketLike, fault: string): void {
    this.faulted = true;
    // The fault stays here: a close reason must fit in 123 bytes, and the relay knows its frames.
    socket.close(RELAY_PROTOCOL_FAULT, 'Malformed relay frame');
    this.ended(RELAY_PROTOCOL_FAULT, fault);
  }

  /** The current socket is gone: stop after a refusal, else reconnect after the backoff. */
  private ended(code: number, reason: string): void {
    this.socket = undefined;
    this.onDisconnected();
    if (this.state === 'closed') return;
    if (RELAY_FATAL_CLOSE_CODES.includes(code)) {
      this.setState({ state: 'stopped', code, reason });
      return;
    }
    const base = this.options.backoffMs ?? 500;
    const delay = Math.min(this.options.maxBackoffMs ?? 10_000, base * 2 ** this.attempt);
    this.attempt += 1;
    this.setState({ state: 'waiting', code, reason, retryInMs: delay });
    this.retryTimer = setTimeout(() => this.open(), delay);
  }
}
