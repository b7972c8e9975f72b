/**
 * The overlay's captions forwarded to the local OBS as CEA-608 (`SendStreamCaption`).
 *
 * What is sent: each final transcript caption the overlay shows, wrapped into 608 captions of two
 * 32-column rows (cea608-lines.ts), one after the other, each held for its reading time. Interim
 * text is not sent: OBS embeds every text as a pop-on caption that replaces the screen, so a
 * stream of interims would flicker and use up 608's small bandwidth. One track is sent (one 608
 * channel, one language): the overlay's `ln` (the original by default), never its `dual` line
 * beside it. A clear (`c`) and the overlay's idle time (`showtime`) clear
 * the 608 screen too.
 *
 * While OBS is not streaming (501, or StreamStateChanged) or not reachable, captions are dropped:
 * there is no stream to carry them, and on a stream started later they would be out of date.
 */
import type { RelayCaption } from '@live-captions/protocol';
import type { SocketConstructor } from '@live-captions/relay-client';
import { captionChunks, holdMs } from './cea608-lines.js';
import { ORIGINAL, trackKeyOf } from './languages.js';
import {
  OBS_STATUS_OUTPUT_NOT_RUNNING,
  OBS_STATUS_SUCCESS,
  type ObsConnectionState,
  ObsWebSocket,
} from './obs-websocket.js';

/**
 * `connecting`; `live`: OBS streams and takes captions; `not-streaming`: OBS is connected but
 * its stream is off; `unreachable`: no connection, retrying; `auth-failed`: wrong password;
 * `unsupported`: OBS refused the protocol version; `closed`.
 */
export type ObsCaptionsState =
  | 'connecting'
  | 'live'
  | 'not-streaming'
  | 'unreachable'
  | 'auth-failed'
  | 'unsupported'
  | 'closed';

export interface ObsCaptionsOptions {
  port: number;
  password?: string;
  /** Idle time after the last caption before the 608 screen is cleared; 0 keeps it. */
  showtimeMs: number;
  /** The track sent (languages.ts): `original` (the default) or a translation's language. */
  track?: string;
  WebSocket?: SocketConstructor;
  /** Reconnect delays of the socket (tests shorten them). */
  backoffMs?: readonly number[];
  /** How long a 608 caption stays; default: its reading time (cea608-lines.ts). */
  holdMs?: (chunk: string, waiting: number) => number;
  onState?: (state: ObsCaptionsState) => void;
  /** A 608 caption OBS accepted ('' clears the screen). */
  onSent?: (captionText: string) => void;
}

/** What the overlay's small OBS notice says; nothing while captions reach a live stream. */
export const OBS_STATE_TEXT: Record<ObsCaptionsState, string> = {
  // Only the first attempt, well under a second: a notice would flash on the stream at each reload.
  connecting: '',
  live: '',
  'not-streaming': 'CC: OBS is not streaming',
  unreachable: 'CC: OBS WebSocket not reachable, retrying',
  'auth-failed': 'CC: OBS refused the WebSocket password',
  unsupported: 'CC: OBS WebSocket 5 needed (OBS 28 or later)',
  closed: '',
};

/** The `obs` port of the overlay's link, or undefined when absent or not a port. */
export function obsPort(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,5}$/.test(value)) return undefined;
  const port = Number(value);
  return port >= 1 && port <= 65535 ? port : undefined;
}

const CONNECTION_STATES: Record<ObsConnectionState, ObsCaptionsState | undefined> = {
  connecting: 'connecting',
  identified: undefined, // decided by the stream's state
  waiting: 'unreachable',
  'auth-failed': 'auth-failed',
  unsupported: 'unsupported',
  closed: 'closed',
};

export class ObsCaptions {
  state: ObsCaptionsState = 'connecting';
  private readonly socket: ObsWebSocket;
  /** 608 captions waiting; '' clears the screen. */
  private readonly queue: string[] = [];
  private sending = false;
  /** StreamStateChanged events seen: a stream-status answer older than the last one is stale. */
  private streamEvents = 0;
  private holdTimer?: ReturnType<typeof setTimeout>;
  private idleTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly options: ObsCaptionsOptions) {
    this.socket = new ObsWebSocket({
      url: `ws://127.0.0.1:${options.port}`,
      password: options.password,
      WebSocket: options.WebSocket,
      backoffMs: options.backoffMs,
      onState: (state) => {
        const mapped = CONNECTION_STATES[state];
        // A retry's attempt keeps `unreachable` (no flicker of the notice between attempts).
        if (mapped === 'connecting' && this.state === 'unreachable') return;
        if (mapped) this.setState(mapped);
        else void this.checkStream();
      },
      onEvent: (type, data) => {
        if (type === 'StreamStateChanged' && typeof data.outputActive === 'boolean') {
          this.streamEvents += 1;
          this.setState(data.outputActive ? 'live' : 'not-streaming');
        }
      },
    });
  }

  /** A caption the overlay has just shown (after its model accepted it). */
  shown(caption: RelayCaption): void {
    if (caption.c) {
      this.enqueue(['']);
    } else if (caption.final !== undefined && trackKeyOf(caption) === (this.options.track ?? ORIGINAL)) {
      this.enqueue(captionChunks(caption.final));
    }
  }

  close(): void {
    clearTimeout(this.holdTimer);
    clearTimeout(this.idleTimer);
    this.queue.length = 0;
    this.socket.close();
  }

  private async checkStream(): Promise<void> {
    const eventsBefore = this.streamEvents;
    try {
      const answer = await this.socket.request('GetStreamStatus');
      // OBS answers requests on its own threads: a stream that started meanwhile may have said so
      // (StreamStateChanged) before this older answer arrives, which must not undo it.
      if (this.streamEvents !== eventsBefore) return;
      this.setState(answer.responseData?.outputActive === true ? 'live' : 'not-streaming');
    } catch {
      // The connection closed again; its state is already reported.
    }
  }

  private setState(state: ObsCaptionsState): void {
    if (state !== 'live') {
      // Nothing to carry them now; and a stream started later begins with an empty 608 screen.
      this.queue.length = 0;
      clearTimeout(this.idleTimer);
    }
    if (this.state === state) return;
    this.state = state;
    this.options.onState?.(state);
  }

  private enqueue(chunks: string[]): void {
    if (this.state !== 'live' || chunks.length === 0) return;
    this.queue.push(...chunks);
    this.pump();
  }

  /** Sends the next 608 caption once the current one has been held long enough. */
  private pump(): void {
    if (this.sending || this.holdTimer !== undefined) return;
    const next = this.queue.shift();
    if (next === undefined) return;
    clearTimeout(this.idleTimer);
    this.sending = true;
    void this.send(next).finally(() => {
      this.sending = false;
      const hold = next === '' ? 0 : (this.options.holdMs ?? holdMs)(next, this.queue.length);
      this.holdTimer = setTimeout(() => {
        this.holdTimer = undefined;
        if (this.queue.length > 0) this.pump();
        else if (next !== '' && this.options.showtimeMs > 0) this.scheduleClear(hold);
      }, hold);
    });
  }

  private scheduleClear(held: number): void {
    this.idleTimer = setTimeout(
      () => {
        if (this.queue.length === 0 && this.state === 'live') this.enqueue(['']);
      },
      Math.max(0, this.options.showtimeMs - held),
    );
  }

  private async send(captionText: string): Promise<void> {
    try {
      const answer = await this.socket.request('SendStreamCaption', { captionText });
      const code = answer.requestStatus.code;
      if (code === OBS_STATUS_SUCCESS) {
        this.setState('live');
        this.options.onSent?.(captionText);
      } else if (code === OBS_STATUS_OUTPUT_NOT_RUNNING) this.setState('not-streaming');
    } catch {
      // Not connected: the socket's state says so and the queue was dropped with it.
    }
  }
}
