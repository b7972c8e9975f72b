/**
 * One capture session over the realtime transport (no DOM): a WebSocket to the gateway's
 * `/v1/realtime?intent=transcription` (OpenAI Realtime API), microphone frames resampled to
 * 24 kHz PCM16 and appended every `sendEveryMs`, the server's VAD cutting utterances; partial text
 * from `delta` events, finals from `completed` ones, in spoken order. Same rules as the rolling
 * transport (`CaptureSession`) through an outage: audio is kept until its transcript is in (at
 * most `maxBufferedSeconds`, 120 s; beyond, the oldest is dropped and told to `onGap`), capture
 * goes on, the link (`realtime-link.ts`) reconnects until the gateway is back and the kept audio
 * goes out again on the new connection (paced by `realtime-appends.ts`). A refusal stops sending,
 * not capturing: `retry()` and `discard()` carry on. Stop sends the rest, commits the open
 * utterance (`realtime-commits.ts`) and closes once every transcript is in.
 */
import { StreamResampler } from '@live-captions/audio';
import {
  CAPTURE_BUFFER_SECONDS,
  retryMessage,
  type SessionState,
  type SessionStatus,
  sleepOf,
} from '@live-captions/capture';
import { CATCH_UP_SPEED, dueAppends } from './realtime-appends.js';
import { RealtimeCommits } from './realtime-commits.js';
import { KeptAudio } from './realtime-kept-audio.js';
import { RealtimeLink } from './realtime-link.js';
import { REALTIME_RATE, sessionUpdate } from './realtime-protocol.js';
import type { RealtimeErrorEvent, RealtimeSessionOptions } from './realtime-session-options.js';
import { type RealtimeServerEvent, RealtimeTranscripts } from './realtime-transcripts.js';

export class RealtimeSession {
  readonly transcripts = new RealtimeTranscripts();
  private readonly options: RealtimeSessionOptions;
  private readonly resampler: StreamResampler;
  private state: SessionState = 'capturing';
  private message?: string;
  private retrying = false;
  private stopRequested = false;
  private dropped = 0;
  private readonly link: RealtimeLink;
  private readonly maxKeptSamples: number;
  /** 24 kHz audio not known to be transcribed. */
  private readonly kept = new KeptAudio();
  private readonly commits: RealtimeCommits;
  private settling = false;
  private idleWaiters: (() => void)[] = [];

  constructor(options: RealtimeSessionOptions) {
    this.options = options;
    this.resampler = new StreamResampler(options.inputRate, REALTIME_RATE);
    this.maxKeptSamples = (options.maxBufferedSeconds ?? CAPTURE_BUFFER_SECONDS) * REALTIME_RATE;
    this.link = new RealtimeLink(options, {
      active: () => this.state === 'capturing' || this.state === 'draining',
      opened: () => this.opened(),
      message: (data) => this.receive(data),
      lost: () => {
        // Utterances of the lost connection will never complete there: their audio is sent again.
        this.transcripts.dropUnfinished();
        this.options.onPartial?.(this.transcripts.partial);
      },
      retrying: (why, _attempt, delayMs) => {
        this.retrying = true;
        this.message = retryMessage(why, delayMs);
        this.emit();
      },
      refused: (why) => {
        this.retrying = false;
        this.state = 'failed';
        this.message = why;
        this.emit();
      },
    });
    this.commits = new RealtimeCommits((event) => this.link.send(event));
    this.link.open();
  }

  get status(): SessionStatus {
    return {
      state: this.state,
      inFlight: this.transcripts.pending > 0 || this.transcripts.speaking,
      bufferedSeconds: this.kept.samples.length / REALTIME_RATE,
      committedSeconds: this.kept.doneUpTo / REALTIME_RATE,
      ...(this.message ? { message: this.message } : {}),
      retrying: this.retrying,
      maxBufferedSeconds: this.maxKeptSamples / REALTIME_RATE,
      droppedSeconds: this.dropped,
    };
  }

  /** Audio whose transcript has not arrived (the page warns before leaving). */
  get hasPendingAudio(): boolean {
    const { pending, speaking } = this.transcripts;
    return this.state === 'failed' || this.retrying || pending > 0 || speaking;
  }

  /** A new language, task or prompt applies to the next utterances. */
  configure(update: { language?: string; task?: 'transcribe' | 'translate'; prompt?: string }): void {
    if (update.language !== undefined) this.options.language = update.language;
    if (update.task !== undefined) this.options.task = update.task;
    if (update.prompt !== undefined) this.options.prompt = update.prompt;
    if (this.connected) this.link.send(sessionUpdate(this.options, true));
  }

  /**
   * A frame from the microphone at `inputRate`: kept while capturing, also while sending is
   * stopped by a refusal or the gateway is away; ignored once stopping.
   */
  push(frame: Float32Array): void {
    if (this.stopRequested || (this.state !== 'capturing' && this.state !== 'failed')) return;
    const fresh = this.resampler.process(frame);
    this.kept.append(fresh);
    const dropped = this.kept.dropBeyond(this.maxKeptSamples) / REALTIME_RATE;
    if (dropped > 0) {
      this.dropped += dropped;
      this.options.onGap?.(dropped);
    }
    this.sendAudio(false, CATCH_UP_SPEED * fresh.length);
    // While nothing is sent the status line shows the kept audio growing.
    if (this.retrying || this.state === 'failed') this.emit();
  }

  /** Stop capturing: the rest is sent and committed; resolves once every transcript is in. */
  stop(): Promise<void> {
    if (!this.stopRequested && this.state !== 'closed') {
      this.stopRequested = true;
      this.kept.append(this.resampler.flush());
      if (this.state === 'capturing') {
        this.state = 'draining';
        if (this.connected) this.finishAudio();
      }
      this.emit();
    }
    return this.whenIdle();
  }

  /** After a refusal: connects again, sends the kept audio and carries on (or finishes). */
  retry(): Promise<void> {
    if (this.state === 'failed') {
      this.state = this.stopRequested ? 'draining' : 'capturing';
      this.message = undefined;
      this.link.reopen();
      this.emit();
    }
    return Promise.resolve();
  }

  /** After a refusal: forgets the kept audio and carries on (connecting again), or closes. */
  discard(): Promise<void> {
    if (this.state === 'failed') {
      this.kept.release();
      this.transcripts.dropUnfinished();
      this.message = undefined;
      if (this.stopRequested) {
        this.finish();
      } else {
        this.state = 'capturing';
        this.link.reopen();
        this.emit();
      }
    }
    return Promise.resolve();
  }

  /** Resolves when the session is closed or failed. */
  whenIdle(): Promise<void> {
    if (this.state === 'closed' || this.state === 'failed') return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private get connected(): boolean {
    return this.link.connected;
  }

  private emit(): void {
    this.options.onStatus?.(this.status);
    if (this.state === 'closed' || this.state === 'failed') {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** A new connection: the settings, then the kept audio (or the rest and a commit, when stopping). */
  private opened(): void {
    this.retrying = false;
    this.message = undefined;
    this.link.send(sessionUpdate(this.options));
    // Everything kept is (re)sent: this connection's audio starts where the kept audio does.
    this.kept.rebase();
    if (this.state === 'draining') this.finishAudio();
    else this.sendAudio(false);
    this.emit();
  }

  private receive(data: unknown): void {
    let event: RealtimeServerEvent;
    try {
      event = JSON.parse(String(data)) as RealtimeServerEvent;
    } catch {
      return;
    }
    if (event.type === 'error') this.receiveError(event as RealtimeErrorEvent);
    if (event.type === 'input_audio_buffer.committed') this.commits.committed();
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
  private receiveError(event: RealtimeErrorEvent): void {
    const answer = this.commits.error(event, this.state === 'draining');
    if (answer === 'empty') this.transcripts.dropOpen();
    else if (answer === 'other') {
      this.link.serverError = event.error?.message ?? 'unknown error';
      this.message = `Server: ${this.link.serverError}`;
    }
  }

  /** Closes once nothing has changed for `settleMs` (a late utterance restarts the wait). */
  private async settle(): Promise<void> {
    if (this.settling) return;
    this.settling = true;
    await sleepOf(this.options.retry)(this.options.settleMs ?? 500);
    this.settling = false;
    if (this.state === 'draining' && this.drained) this.finish();
  }

  /** An utterance the server's VAD opened after the Stop commit was answered is committed too. */
  private recommitLateUtterance(): void {
    if (this.commits.lateUtterance(this.transcripts.speaking) === 'drop') this.transcripts.dropOpen();
  }

  private get drained(): boolean {
    return this.commits.settled && this.transcripts.pending === 0 && !this.transcripts.speaking;
  }

  private finish(): void {
    this.state = 'closed';
    // Every transcript is in (or the operator discarded the rest): nothing is waiting any more.
    this.kept.release();
    this.link.close();
    this.emit();
  }

  /** Sends what is left and commits it (stop, or a reconnect while stopping). */
  private finishAudio(): void {
    this.sendAudio(true);
    this.commits.commitRest();
  }

  /** `budget`: samples the backlog may advance by now, when catching up after an outage. */
  private sendAudio(all: boolean, budget = 0): void {
    if (!this.connected) return;
    const catchUp = { budget, transcriptWaiting: this.transcripts.pending > 0 };
    for (const append of dueAppends(this.kept, all, this.options.sendEveryMs, catchUp))
      this.link.send(append);
    this.trim();
  }

  /** Drops kept audio that is transcribed or was silence before any utterance. */
  private trim(): void {
    this.kept.trim(this.transcripts.unfinishedFromMs);
  }
}
