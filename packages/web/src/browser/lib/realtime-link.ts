/**
 * The realtime session's WebSocket (no DOM): opens it with the key in the subprotocols, sends
 * events while it is open, and after a lost connection opens it again on the retry delays of
 * `retry.ts` (0.5, 1, 2 s). What the session does about it (resend the kept audio, show the
 * reason, fail once the delays are spent) is its own: the connection only tells it.
 */
import { type RealtimeSocket, realtimeProtocols } from './realtime-protocol.js';
import { browserSocket, type RealtimeSessionOptions } from './realtime-session-options.js';
import { RETRY_DELAYS_MS, sleepOf } from './retry.js';

const OPEN = 1;

/** What the connection tells its session. */
export interface ConnectionEvents {
  /** Whether the session still wants a connection (capturing or draining). */
  active(): boolean;
  opened(): void;
  message(data: unknown): void;
  /** The connection is gone (a retry or a failure follows). */
  lost(): void;
  /** The next try is `attempt` of `of`, after a delay. */
  retrying(why: string, attempt: number, of: number): void;
  /** Every retry delay is spent: no connection any more. */
  failed(why: string): void;
}

export class RealtimeConnection {
  /** Why the server last complained: the reason shown when it then closes the connection. */
  serverError?: string;
  private socket?: RealtimeSocket;
  private attempt = 0;

  constructor(
    private readonly options: Pick<RealtimeSessionOptions, 'url' | 'apiKey' | 'connect' | 'retry'>,
    private readonly events: ConnectionEvents,
  ) {}

  get connected(): boolean {
    return this.socket?.readyState === OPEN;
  }

  open(): void {
    const connect = this.options.connect ?? browserSocket;
    const socket = connect(this.options.url, realtimeProtocols(this.options.apiKey));
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.attempt = 0;
      this.serverError = undefined;
      this.events.opened();
    };
    socket.onmessage = (event) => this.events.message(event.data);
    // A close event always follows an error one, and carries all the session needs.
    socket.onerror = () => undefined;
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (!this.events.active()) return;
      this.events.lost();
      // Browsers hide why an upgrade was refused (401, 403, 429, 503 or no such endpoint).
      const why = opened
        ? `connection closed (code ${event.code})`
        : `the realtime connection could not be opened (code ${event.code})`;
      void this.reconnect(this.serverError || event.reason || why);
    };
  }

  /** Opens again with every retry delay ahead (Retry after a failure). */
  reopen(): void {
    this.attempt = 0;
    this.open();
  }

  send(event: Record<string, unknown>): void {
    if (this.connected) this.socket!.send(JSON.stringify(event));
  }

  /** Closes for good (the session is over); its close event is ignored. */
  close(): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.close(1000, 'capture stopped');
  }

  private async reconnect(why: string): Promise<void> {
    const delays = this.options.retry?.delaysMs ?? RETRY_DELAYS_MS;
    const delay = delays[this.attempt];
    this.attempt += 1;
    if (delay === undefined) {
      this.events.failed(why);
      return;
    }
    this.events.retrying(why, this.attempt, delays.length);
    await sleepOf(this.options.retry)(delay);
    if (this.events.active()) this.open();
  }
}
