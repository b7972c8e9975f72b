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
  /**
   * Longest wait from opening a socket to the relay's `joined`; past it the attempt is given up
   * (a relay that accepts connections but does not answer) and retried after the backoff.
   * @defaultValue 10000
   */
  joinTimeoutMs?: number;
  onState?: (event: RelayClientEvent) => void;
}

const OPEN = 1;

/**
 * The client's close code for a relay that broke protocol 2: 1002 (protocol error) as an
 * application code, since a browser may only close with 1000 or 3000-4999.
 */
export const RELAY_PROTOCOL_FAULT = 4002;

/**
 * The client's close code for a relay that went silent: no `joined` within `joinTimeoutMs`, or
 * no frame for `silenceLimitMs(joined.beatMs)` on a joined socket (a frozen relay, a dead NAT
 * mapping: the socket looks open but nothing gets through).
 */
export const RELAY_SILENT = 4003;

/**
 * How long a joined socket may go without a frame before the relay counts as silent: two beat
 * intervals (the relay skips a beat for a reader that just got captions, so two frames may be
 * almost two intervals apart) plus a second for the network's jitter. With the relay's default
 * beat of 1.5 s: 4 s.
 */
export function silenceLimitMs(beatMs: number): number {
  return 2 * beatMs + 1000;
}

/** When the current socket last got a frame, and how long it may stay silent (none: unwatched). */
interface Watched {
  lastFrameAt: number;
  limitMs: number | undefined;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

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
  /** Checks the current socket for silence (no `joined` in time, or no frame for too long). */
  private watchdog?: ReturnType<typeof setInterval>;

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
    clearInterval(this.watchdog);
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
    const watched: Watched = { lastFrameAt: Date.now(), limitMs: this.options.joinTimeoutMs ?? 10_000 };
    this.watch(socket, watched, (limitMs) => `The relay did not answer within ${seconds(limitMs)}`);
    socket.onopen = () => {
      if (this.socket === socket) socket.send(JSON.stringify(this.joinFrame()));
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      watched.lastFrameAt = Date.now();
      const checked = checkServerFrame(event.data);
      if (!checked.ok) {
        this.fault(socket, checked.fault);
        return;
      }
      const frame = checked.frame;
      if (!joined && 'joined' in frame) {
        joined = true;
        // A relay that does not beat (older than beats) is never called silent.
        watched.limitMs = frame.beatMs === undefined ? undefined : silenceLimitMs(frame.beatMs);
        this.watch(socket, watched, (_limit, quiet) => `No word from the relay for ${seconds(quiet)}`);
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

  /**
   * Watches `socket` until it is replaced: silent for longer than `watched.limitMs` (none: not
   * watched), it is given up with `why`. The quiet time is read from the clock, so a throttled
   * background tab whose timer fires late never gives up early; checked every quarter of the
   * limit (at most every 0.5 s), a silence shows at most that late.
   */
  private watch(
    socket: SocketLike,
    watched: Watched,
    why: (limitMs: number, quietMs: number) => string,
  ): void {
    clearInterval(this.watchdog);
    const limitMs = watched.limitMs;
    if (limitMs === undefined) return;
    this.watchdog = setInterval(
      () => {
        if (this.socket !== socket) return;
        const quiet = Date.now() - watched.lastFrameAt;
        if (quiet > limitMs) this.giveUp(socket, why(limitMs, quiet));
      },
      Math.max(5, Math.min(500, limitMs / 4)),
    );
  }

  /**
   * The relay went silent on this socket: it is dropped at once (a close handshake with a frozen
   * peer would never finish) and joined again after the backoff.
   */
  private giveUp(socket: SocketLike, reason: string): void {
    try {
      socket.close(RELAY_SILENT, 'Relay silent');
    } catch {
      // Already closing: nothing more to do with it.
    }
    this.ended(RELAY_SILENT, reason);
  }

  /** The current socket is gone: stop after a refusal, else reconnect after the backoff. */
  private ended(code: number, reason: string): void {
    clearInterval(this.watchdog);
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
