/**
 * The realtime session's WebSocket and its reconnects (no DOM): opens it with the key in the
 * subprotocols, sends events while it is open, and after a lost or refused connection opens it
 * again after the capture's backoff with jitter (`retry.ts`'s, as the rolling windows'), for as
 * long as the session wants one: an event carries on through a gateway outage. A close the
 * server means (1008 policy, 1009 too large: reconnecting cannot change the answer) stops the
 * reconnects until `reopen()` (the operator's Retry). Retry-After cannot be honoured here: a
 * browser hides the refused upgrade's response, status and headers alike (close code 1006).
 * What the session does about a loss (keep the audio, resend it, show why) is its own.
 */

import { backoffMs, sleepOf } from '@live-captions/capture';
import { type RealtimeSocket, realtimeProtocols } from './realtime-protocol.js';
import { browserSocket, type RealtimeSessionOptions } from './realtime-session-options.js';

const OPEN = 1;
/** Close codes of a server that refused what the session sent: not retried by themselves. */
const REFUSED_CODES: ReadonlySet<number> = new Set([1008, 1009]);

/** What the link tells its session. */
export interface LinkEvents {
  /** Whether the session still wants a connection (capturing or draining). */
  active(): boolean;
  opened(): void;
  message(data: unknown): void;
  /** The connection is gone (a reconnect or a refusal follows). */
  lost(): void;
  /** The next try, the `attempt`th since the last open connection, comes in `delayMs`. */
  retrying(why: string, attempt: number, delayMs: number): void;
  /** The server ended the session for a reason reconnecting cannot change: waits for `reopen()`. */
  refused(why: string): void;
}

export class RealtimeLink {
  /** Why the server last complained: the reason shown when it then closes the connection. */
  serverError?: string;
  private socket?: RealtimeSocket;
  private attempt = 0;
  /** Bumped by `reopen()` and `close()`: a reconnect waiting since then is called off. */
  private generation = 0;

  constructor(
    private readonly options: Pick<RealtimeSessionOptions, 'url' | 'apiKey' | 'connect' | 'retry'>,
    private readonly events: LinkEvents,
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
      const why =
        this.serverError ||
        event.reason ||
        (opened
          ? `connection closed (code ${event.code})`
          : `the realtime connection could not be opened (code ${event.code})`);
      if (opened && REFUSED_CODES.has(event.code)) this.events.refused(why);
      else void this.reconnect(why);
    };
  }

  /** Opens again at once, the backoff starting over (Retry after a refusal). */
  reopen(): void {
    this.generation += 1;
    this.attempt = 0;
    if (!this.socket) this.open();
  }

  send(event: Record<string, unknown>): void {
    if (this.connected) this.socket!.send(JSON.stringify(event));
  }

  /** Closes for good (the session is over); its close event is ignored. */
  close(): void {
    this.generation += 1;
    const socket = this.socket;
    this.socket = undefined;
    socket?.close(1000, 'capture stopped');
  }

  private async reconnect(why: string): Promise<void> {
    this.attempt += 1;
    const generation = this.generation;
    const delayMs = backoffMs(this.attempt, undefined, this.options.retry?.random);
    this.events.retrying(why, this.attempt, delayMs);
    await sleepOf(this.options.retry)(delayMs);
    if (generation === this.generation && !this.socket && this.events.active()) this.open();
  }
}
