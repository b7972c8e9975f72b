/**
 * One capture session over the realtime transport (no DOM): a WebSocket to the gateway's
 * `/v1/realtime?intent=transcription` (OpenAI Realtime API), microphone frames resampled to
 * 24 kHz PCM16 and appended every `sendEveryMs`, the server's VAD cutting utterances. Partial
 * text comes from `delta` events, finals from `completed` ones, in spoken order.
 *
 * Same rules as the rolling transport (`CaptureSession`): audio is never dropped silently. Until
 * an utterance's transcript has arrived its audio is kept, and after a lost connection it is sent
 * again on the next one; reconnects follow the retry delays of `retry.ts` (0.5, 1, 2 s), then
 * the session fails with the audio kept for Retry or Discard. Stop sends the rest, commits the
 * open utterance and closes once every transcript is in.
 */
import type { SessionState, SessionStatus } from './capture-session.js';
import { base64, pcm16 } from './pcm16.js';
import { KeptAudio } from './realtime-kept-audio.js';
import { REALTIME_RATE, type RealtimeSocket, realtimeProtocols, sessionUpdate } from './realtime-protocol.js';
import {
  browserSocket,
  type RealtimeErrorEvent,
  type RealtimeSessionOptions,
} from './realtime-session-options.js';
import { type RealtimeServerEvent, RealtimeTranscripts } from './realtime-transcripts.js';
import { StreamResampler } from './resample.js';
import { RETRY_DELAYS_MS } from './retry.js';

/** Largest append: keeps each WebSocket frame well under the server's limit. */
const MAX_APPEND_SAMPLES = REALTIME_RATE / 2;
/** Audio without a transcript beyond which capture stops and drains (as the rolling buffer). */
const MAX_KEPT_SAMPLES = REALTIME_RATE * 30;

const OPEN = 1;

export class RealtimeSession {
  readonly transcripts = new RealtimeTranscripts();
  private readonly options: RealtimeSessionOptions;
  private readonly resampler: StreamResampler;
  private state: SessionState = 'capturing';
  private message?: string;
  private socket?: RealtimeSocket;
  /** 24 kHz audio not known to be transcribed. */
  private readonly kept = new KeptAudio();
  private attempt = 0;
  private serverError?: string;
  /** The commit awaiting its answer (`committed`, or an `error` naming it). */
  private commitEventId?: string;
  /** Since Stop, a commit was answered: the server has read all the audio sent before it. */
  private commitAnswered = false;
  private recommits = 0;
  private settling = false;
  private eventCount = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(options: RealtimeSessionOptions) {
    this.options = options;
    this.resampler = new StreamResampler(options.inputRate, REALTIME_RATE);
    this.open();
  }

  get status(): SessionStatus {
    return {
      state: this.state,
      inFlight: this.transcripts.pending > 0 || this.transcripts.speaking,
      bufferedSeconds: this.kept.samples.length / REALTIME_RATE,
      committedSeconds: this.kept.doneUpTo / REALTIME_RATE,
      ...(this.message ? { message: this.message } : {}),
    };
  }

  /** Audio whose transcript has not arrived (the page warns before leaving). */
  get hasPendingAudio(): boolean {
    return this.state === 'failed' || this.transcripts.pending > 0 || this.transcripts.speaking;
  }

  /** A new language, task or prompt applies to the next utterances. */
  configure(update: { language?: string; task?: 'transcribe' | 'translate'; prompt?: string }): void {
    if (update.language !== undefined) this.options.language = update.language;
    if (update.task !== undefined) this.options.task = update.task;
    if (update.prompt !== undefined) this.options.prompt = update.prompt;
    if (this.connected) this.send(sessionUpdate(this.options, true));
  }

  /** A frame from the microphone at `inputRate` (ignored once stopped). */
  push(frame: Float32Array): void {
    if (this.state !== 'capturing') return;
    this.kept.append(this.resampler.process(frame));
    if (this.kept.samples.length > MAX_KEPT_SAMPLES) {
      // Transcripts lag more than 30 s behind: stop taking audio and finish what is there.
      this.message = 'More than 30 s of audio waiting: capture stopped, sending the rest';
      void this.stop();
      return;
    }
    this.sendAudio(false);
  }

  /** Stop capturing: the rest is sent and committed; resolves once every transcript is in. */
  stop(): Promise<void> {
    if (this.state === 'capturing') {
      this.state = 'draining';
      this.kept.append(this.resampler.flush());
      if (this.connected) this.finishAudio();
      this.emit();
    }
    return this.whenIdle();
  }

  /** After a failure: connects again, sends the kept audio and finishes. */
  retry(): Promise<void> {
    if (this.state !== 'failed') return this.whenIdle();
    this.state = 'draining';
    this.message = undefined;
    this.attempt = 0;
    this.open();
    this.emit();
    return this.whenIdle();
  }

  /** After a failure: forgets the kept audio. */
  discard(): Promise<void> {
    if (this.state !== 'failed') return this.whenIdle();
    this.kept.clear();
    this.transcripts.dropUnfinished();
    this.message = undefined;
    this.finish();
    return this.whenIdle();
  }

  /** Resolves when the session is closed or failed. */
  whenIdle(): Promise<void> {
    if (this.state === 'closed' || this.state === 'failed') return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private get connected(): boolean {
    return this.socket?.readyState === OPEN;
  }

  private emit(): void {
    this.options.onStatus?.(this.status);
    if (this.state === 'closed' || this.state === 'failed') {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private open(): void {
    const connect = this.options.connect ?? browserSocket;
    const socket = connect(this.options.url, realtimeProtocols(this.options.apiKey));
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.attempt = 0;
      this.message = this.serverError = undefined;
      this.send(sessionUpdate(this.options));
      // Everything kept is (re)sent: this connection's audio starts where the kept audio does.
      this.kept.rebase();
      if (this.state === 'draining') this.finishAudio();
      else this.sendAudio(true);
      this.emit();
    };
    socket.onmessage = (event) => this.receive(event.data);
    // A close event always follows an error one, and carries all the session needs.
    socket.onerror = () => undefined;
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (this.state === 'closed' || this.state === 'failed') return;
      // Utterances of the lost connection will never complete there: their audio is sent again.
      this.transcripts.dropUnfinished();
      this.options.onPartial?.(this.transcripts.partial);
      // Browsers hide why an upgrade was refused (401, 403, 429, 503 or no such endpoint).
      const why = opened
        ? `connection closed (code ${event.code})`
        : `the realtime connection could not be opened (code ${event.code})`;
      void this.reconnect(this.serverError || event.reason || why);
    };
  }

  private async reconnect(why: string): Promise<void> {
    const delays = this.options.retry?.delaysMs ?? RETRY_DELAYS_MS;
    const delay = delays[this.attempt];
    this.attempt += 1;
    if (delay === undefined) {
      // Capture stops here: the filter's look-ahead belongs to the kept audio too.
      if (this.state === 'capturing') this.kept.append(this.resampler.flush());
      this.state = 'failed';
      this.message = why;
      this.emit();
      return;
    }
    this.message = `Retrying (${this.attempt}/${delays.length}): ${why}`;
    this.emit();
    await this.sleep(delay);
    if (this.state === 'capturing' || this.state === 'draining') this.open();
  }

  private receive(data: unknown): void {
    let event: RealtimeServerEvent;
    try {
      event = JSON.parse(String(data)) as RealtimeServerEvent;
    } catch {
      return;
    }
    if (event.type === 'error') this.receiveError(event as RealtimeErrorEvent);
    if (event.type === 'input_audio_buffer.committed' && this.commitEventId) {
      this.commitAnswered = true;
      this.commitEventId = undefined;
    }
    if (this.transcripts.apply(event)) {
      for (const final of this.transcripts.takeFinals()) {
        if (final.audioEndMs !== undefined) this.kept.transcribedTo(final.audioEndMs);
        this.options.onFinal?.(final);
      }
      const failures = this.transcripts.takeFailures();
      if (failures.length > 0) this.message = `Server: ${failures.at(-1)}`;
      this.options.onPartial?.(this.transcripts.partial);
    }
    this.trim();
    if (this.state === 'draining') this.recommitLateUtterance();
    if (this.state === 'draining' && this.drained) void this.settle();
    this.emit();
  }

  /** An `error` event: the answer to our commit, or the server's complaint to show. */
  private receiveError({ error }: RealtimeErrorEvent): void {
    const ours = this.commitEventId && (error?.event_id === this.commitEventId || !error?.event_id);
    if (error?.code === 'input_audio_buffer_commit_empty' && this.state === 'draining') {
      // Nothing (or under 100 ms) to commit: an utterance the VAD opened on the last frames is empty.
      this.transcripts.dropOpen();
      this.commitAnswered = true;
      if (ours) this.commitEventId = undefined;
    } else if (ours) {
      this.commitAnswered = true;
      this.commitEventId = undefined;
    } else {
      this.serverError = error?.message ?? 'unknown error';
      this.message = `Server: ${this.serverError}`;
    }
  }

  /** Closes once nothing has changed for `settleMs` (a late utterance restarts the wait). */
  private async settle(): Promise<void> {
    if (this.settling) return;
    this.settling = true;
    await this.sleep(this.options.settleMs ?? 500);
    this.settling = false;
    if (this.state === 'draining' && this.drained) this.finish();
  }

  private sleep(ms: number): Promise<void> {
    return (this.options.retry?.sleep ?? ((wait) => new Promise((resolve) => setTimeout(resolve, wait))))(ms);
  }

  /**
   * The server's VAD runs behind the audio: it may open an utterance on the last frames after
   * the Stop commit was answered. Nothing more will come to close it, so it is committed too.
   */
  private recommitLateUtterance(): void {
    if (!this.commitAnswered || this.commitEventId || !this.transcripts.speaking) return;
    if (this.recommits >= 5) {
      this.transcripts.dropOpen();
      return;
    }
    this.recommits += 1;
    this.commit();
  }

  private get drained(): boolean {
    return (
      this.commitAnswered &&
      this.commitEventId === undefined &&
      this.transcripts.pending === 0 &&
      !this.transcripts.speaking
    );
  }

  private finish(): void {
    this.state = 'closed';
    // Every transcript is in (or the operator discarded the rest): nothing is waiting any more.
    this.kept.release();
    const socket = this.socket;
    this.socket = undefined;
    socket?.close(1000, 'capture stopped');
    this.emit();
  }

  /** Sends what is left and commits it (stop, or a reconnect while stopping). */
  private finishAudio(): void {
    this.sendAudio(true);
    this.commitAnswered = false;
    this.recommits = 0;
    this.commit();
  }

  private commit(): void {
    this.commitEventId = this.nextEventId();
    this.send({ type: 'input_audio_buffer.commit', event_id: this.commitEventId });
  }

  private sendAudio(all: boolean): void {
    if (!this.connected) return;
    const due = Math.round(((this.options.sendEveryMs ?? 100) * REALTIME_RATE) / 1000);
    if (!all && this.kept.end - this.kept.sentUpTo < due) return;
    for (const chunk of this.kept.unsent(MAX_APPEND_SAMPLES)) {
      this.send({ type: 'input_audio_buffer.append', audio: base64(pcm16(chunk)) });
    }
    this.trim();
  }

  private send(event: Record<string, unknown>): void {
    if (this.connected) this.socket!.send(JSON.stringify(event));
  }

  private nextEventId(): string {
    this.eventCount += 1;
    return `evt_capture_${this.eventCount}`;
  }

  /** Drops kept audio that is transcribed or was silence before any utterance. */
  private trim(): void {
    this.kept.trim(this.transcripts.unfinishedFromMs);
  }
}
