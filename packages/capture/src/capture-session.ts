/**
 * One capture session against the speech gateway (no DOM): feeds the rolling buffer, sends one
 * window at a time to `POST /transcribe` with a stable X-Stream-ID and a fresh X-Request-ID per
 * window (reused, with the same bytes, on every retry), drains with `final=1` on stop and then
 * closes the stream with `DELETE /streams/{id}`. Through a gateway outage it carries on: capture
 * goes on into the buffer (bounded, `maxBufferedSeconds`, 120 s by default), the window is retried
 * with backoff and jitter until the gateway answers, and the backlog then goes out by itself;
 * beyond the bound the oldest audio is dropped and reported (`onGap`). An answer that retrying
 * cannot change (a 4xx) stops sending with the audio kept, capture still going: `retry()` sends
 * the same window again and carries on, `discard()` forgets the kept audio and carries on.
 */

import type { TranscribeResponse } from '@live-captions/protocol';
import { gatewayHeaders, randomId } from './gateway-headers.js';

export { randomId };

import { LagWatchdog } from './lag-watchdog.js';
import { RequestFailedError, type RetryOptions, retryMessage, withRetries } from './retry.js';
import { type AudioWindow, RollingBuffer, type RollingBufferOptions } from './rolling-buffer.js';
import type { SessionState, SessionStatus } from './session-status.js';

// The status both transports report (the realtime session's too), kept importable from here.
export type { SessionState, SessionStatus } from './session-status.js';

/** Audio kept through a gateway outage before the oldest is dropped. */
export const CAPTURE_BUFFER_SECONDS = 120;

export interface CaptureSessionOptions extends RollingBufferOptions {
  /** Base URL of the gateway (the page's own origin). */
  baseUrl: string;
  streamId: string;
  language: string;
  mode: 'transcribe' | 'translate' | 'both';
  /** Names and terms to expect (the operator's vocabulary), sent as each window's `prompt`. */
  prompt?: string;
  /** Service access token, when the gateway needs one. */
  apiKey?: string;
  /**
   * The caption room this stream captions (its source room), sent as `X-Caption-Room`: the
   * gateway hands decode slots round robin across rooms, so a room's backlog starves no other.
   */
  room?: string;
  fetch?: typeof fetch;
  retry?: RetryOptions;
  newRequestId?: () => string;
  onResult?: (result: TranscribeResponse, window: AudioWindow) => void;
  onStatus?: (status: SessionStatus) => void;
  /** The oldest `seconds` of audio were dropped (the buffer was full): a gap in the transcript. */
  onGap?: (seconds: number) => void;
  /** Backlog past which the session skips to the live edge (default 8 s, as the gateway's). */
  lagBoundSeconds?: number;
  /** The session skipped `seconds` of audio to catch up (the page marks the gap). */
  onSkip?: (seconds: number) => void;
}

const PCM_TYPE = 'application/octet-stream';

interface Pending {
  window: AudioWindow;
  requestId: string;
}

export class CaptureSession {
  readonly streamId: string;
  readonly buffer: RollingBuffer;
  private readonly options: CaptureSessionOptions;
  private readonly fetch: typeof fetch;
  private state: SessionState = 'capturing';
  private pending?: Pending;
  private sending = false;
  private committed = 0;
  private dropped = 0;
  private readonly lag: LagWatchdog;
  private retrying = false;
  private stopRequested = false;
  private message?: string;
  private closing?: Promise<void>;
  private idleWaiters: (() => void)[] = [];

  constructor(options: CaptureSessionOptions) {
    this.options = options;
    this.streamId = options.streamId;
    this.buffer = new RollingBuffer({ maxBufferedSeconds: CAPTURE_BUFFER_SECONDS, ...options });
    this.lag = new LagWatchdog(this.buffer, options.lagBoundSeconds);
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  get status(): SessionStatus {
    return {
      state: this.state,
      inFlight: this.sending,
      bufferedSeconds: this.buffer.bufferedSeconds,
      committedSeconds: this.committed,
      backlogSeconds: this.buffer.pendingSeconds,
      skippedSeconds: this.lag.skipped,
      ...(this.message ? { message: this.message } : {}),
      retrying: this.retrying,
      maxBufferedSeconds: this.options.maxBufferedSeconds ?? CAPTURE_BUFFER_SECONDS,
      droppedSeconds: this.dropped,
    };
  }

  /** Audio or a failed window is waiting (the page warns before leaving). */
  get hasPendingAudio(): boolean {
    return this.pending !== undefined || this.buffer.hasSpeech;
  }

  /** Changes the sending settings of the next windows. */
  configure(update: {
    language?: string;
    mode?: CaptureSessionOptions['mode'];
    prompt?: string;
    threshold?: number;
    intervalSeconds?: number;
  }): void {
    const { threshold, intervalSeconds, ...rest } = update;
    Object.assign(this.options, rest);
    this.buffer.configure({
      ...(threshold !== undefined ? { threshold } : {}),
      ...(intervalSeconds !== undefined ? { intervalSeconds } : {}),
    });
  }

  /**
   * A frame from the microphone (kept while capturing, also while sending is stopped by a
   * failure; ignored once stopping); `frameRms` as in `RollingBuffer.push`.
   */
  push(frame: Float32Array, frameRms?: number): void {
    if (this.stopRequested || (this.state !== 'capturing' && this.state !== 'failed')) return;
    this.buffer.push(frame, frameRms);
    const dropped = this.buffer.dropOverflow();
    if (dropped > 0) {
      // The window being retried held the oldest audio: it is abandoned with it.
      this.pending = undefined;
      this.dropped += dropped;
      this.options.onGap?.(dropped);
    }
    this.pump();
  }

  /** Stop capturing: the rest is sent with `final=1`, then the stream is closed. */
  stop(): Promise<void> {
    this.stopRequested = true;
    if (this.state === 'capturing') this.state = 'draining';
    this.pump();
    return this.whenIdle();
  }

  /**
   * After a failure: sends the kept window again (same request ID and bytes) and carries on
   * (capturing, or finishing when Stop was pressed).
   */
  retry(): Promise<void> {
    if (this.state === 'failed') {
      this.state = this.stopRequested ? 'draining' : 'capturing';
      this.message = undefined;
      this.pump();
    }
    return Promise.resolve();
  }

  /** After a failure: forgets the kept audio and carries on (capturing, or closing). */
  discard(): Promise<void> {
    if (this.state === 'failed') {
      this.pending = undefined;
      this.buffer.clear();
      this.state = this.stopRequested ? 'draining' : 'capturing';
      this.message = undefined;
      this.pump();
    }
    return Promise.resolve();
  }

  /** Resolves when the session is closed or failed (nothing more happens by itself). */
  whenIdle(): Promise<void> {
    if (this.state === 'closed' || this.state === 'failed') return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private emit(): void {
    this.options.onStatus?.(this.status);
    if (this.state === 'closed' || this.state === 'failed') {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private pump(): void {
    if (this.sending || this.state === 'failed' || this.state === 'closed') return;
    if (!this.pending) {
      const window = this.buffer.next(this.state === 'draining');
      if (window)
        this.pending = { window, requestId: (this.options.newRequestId ?? (() => randomId('req')))() };
    }
    if (this.pending) {
      void this.send(this.pending);
    } else if (this.state === 'draining') {
      void this.close();
    }
    this.emit();
  }

  private async send(pending: Pending): Promise<void> {
    this.sending = true;
    const { window, requestId } = pending;
    const query = new URLSearchParams({
      language: this.options.language,
      mode: this.options.mode,
      window: '1',
      final: window.final ? '1' : '0',
      context_seconds: String(window.contextSeconds),
      ...(this.options.prompt ? { prompt: this.options.prompt } : {}),
    });
    const body = window.samples.buffer.slice(0) as ArrayBuffer;
    try {
      const response = await withRetries(
        () =>
          this.fetch(new URL(`transcribe?${query}`, this.options.baseUrl), {
            method: 'POST',
            headers: this.headers({
              'Content-Type': PCM_TYPE,
              'X-Request-ID': requestId,
              ...this.lag.headers(),
            }),
            body,
          }),
        {
          ...this.options.retry,
          forever: true,
          // Abandoned (its audio dropped from a full buffer) or the session discarded: stop.
          giveUp: () => this.pending !== pending || this.state === 'closed',
          onRetry: (event) => {
            this.retrying = true;
            this.lag.outage();
            this.message = retryMessage(event.message, event.delayMs);
            this.emit();
            this.options.retry?.onRetry?.(event);
          },
        },
      );
      const result = (await response.json()) as TranscribeResponse;
      this.sending = false;
      this.retrying = false;
      if (this.pending !== pending) {
        // Its audio was dropped meanwhile: the answer belongs to nothing kept.
        this.pump();
        return;
      }
      this.pending = undefined;
      this.message = undefined;
      this.buffer.commit(result.committed_seconds);
      this.committed += Math.max(0, result.committed_seconds - window.contextSeconds);
      this.options.onResult?.(result, window);
      const skipped = this.lag.answered(this.state === 'capturing');
      if (skipped > 0) this.options.onSkip?.(skipped);
    } catch (error) {
      this.sending = false;
      this.retrying = false;
      if (this.pending === pending) {
        // An answer retrying cannot change: the window stays in the buffer, capture goes on, and
        // `retry()` sends the same bytes again.
        this.state = 'failed';
        this.message = error instanceof RequestFailedError ? error.message : String(error);
        this.emit();
        return;
      }
    }
    this.pump();
  }

  private close(): Promise<void> {
    this.closing ??= (async () => {
      this.sending = true;
      try {
        await withRetries(
          () =>
            this.fetch(new URL(`streams/${encodeURIComponent(this.streamId)}`, this.options.baseUrl), {
              method: 'DELETE',
              headers: this.headers({}),
            }),
          this.options.retry,
        );
      } catch {
        // The session expires on its own after 120 s; nothing is lost.
      }
      this.sending = false;
      this.state = 'closed';
      this.emit();
    })();
    return this.closing;
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return gatewayHeaders({ ...this.options, streamId: this.streamId }, extra);
  }
}
