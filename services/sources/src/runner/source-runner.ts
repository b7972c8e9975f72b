/**
 * One source on the replica that holds its lease: ffmpeg (restarted with backoff whenever it ends
 * or stalls, for as long as the source should run) feeding the capture policy's `CaptureSession`
 * exactly as the capture page's microphone does, and every caption published to the event's source
 * room. Each ffmpeg run is one gateway stream: when the input drops, what is buffered is sent as
 * final and the stream closed; when audio comes back, a gap marker says how long nothing could be
 * heard, and a new stream starts. Nothing is captioned twice and nothing stops by itself.
 */
import { backoffMs, levelFromRms, rms, SENSITIVITY, smoothLevel } from '@live-captions/capture';
import type { Logger } from '@live-captions/runtime';
import { type FfmpegRun, runFfmpeg } from '../adapters/ffmpeg-process.js';
import type { SourceRow } from '../adapters/sources-repo.js';
import { type FfmpegInput, ffmpegArgs } from '../domain/ffmpeg-args.js';
import { explainReason, reasonInputOf } from '../domain/ffmpeg-reasons.js';
import type { SourceState, SourceStatus } from '../domain/source.js';
import { type InputDeps, openInput } from './ffmpeg-input.js';
import { SourceCaptions, type SourceCaptionsDeps } from './source-captions.js';
import { type SessionDeps, SourceSession } from './source-session.js';

export interface RunnerDeps extends SourceCaptionsDeps, InputDeps, SessionDeps {
  log: Logger;
  node: string;
  ffmpeg: { path: string; threads: number; nice: number; memoryMb: number; caFile: string };
  silentSeconds: number;
  stallSeconds: number;
}

/** A pull input that has not given audio this long after its start is restarted. */
const FIRST_AUDIO_SECONDS = 20;
/** A pull input without audio this long after its start is told as such (still `connecting`). */
const NO_AUDIO_YET_SECONDS = 5;
const NO_AUDIO_HINT = 'check that the address is the stream itself (not a web page) and that it is on air';
/** A drop shorter than this (a reconnect within a window) is not marked. */
const MIN_GAP_SECONDS = 1;
/** A run that gave audio this long resets the backoff. */
const STEADY_MS = 30_000;
/** Consecutive failed attempts after which a reconnecting source counts as failed (it still retries). */
const FAILED_AFTER = 3;
const REPORT_MS = 2000;
export class SourceRunner {
  private stopped = false;
  private state: SourceState = 'connecting';
  private reason: string | null = null;
  private since = Date.now();
  private level = 0;
  private session?: SourceSession;
  private readonly captions: SourceCaptions;
  private readonly done: Promise<void>;
  private ffmpeg?: FfmpegRun;
  private wake?: () => void;
  private reportTimer?: NodeJS.Timeout;
  /** When audio last arrived, and when speech (above the sensitivity's level) last did. */
  private lastAudioAt = 0;
  private lastVoicedAt = 0;
  /** When the previous run's audio stopped (the gap's start), until audio comes back. */
  private lostAt?: number;
  private runNo = 0;

  constructor(
    private source: SourceRow,
    private readonly deps: RunnerDeps,
  ) {
    this.captions = new SourceCaptions(source, () => this.source.settings, deps);
    // Taken over from a replica that died (or this service restarted) while it was hearing audio:
    // what was said meanwhile is lost, and the gap marker says so once audio comes.
    const previous = source.status;
    if (
      previous &&
      previous.node !== deps.node &&
      ['live', 'silent'].includes(previous.state) &&
      source.statusAt
    )
      this.lostAt = source.statusAt;
    this.reportTimer = setInterval(() => void this.report(), REPORT_MS);
    this.done = this.loop();
  }

  get id(): string {
    return this.source.id;
  }

  /** New capture settings (language, mode, vocabulary, words) apply to the next windows. */
  update(source: SourceRow): void {
    this.source = source;
    this.session?.configure(source.settings);
  }

  /** Stops ffmpeg, sends what is buffered, closes the stream and the relay connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ffmpeg?.stop();
    this.wake?.();
    await this.done;
    clearInterval(this.reportTimer);
    // Stopped, removed or moved to another replica: its encoder must not stay connected here.
    if (this.source.kind === 'rtmp-push' && this.source.streamKey)
      await this.deps.push.dropRtmp?.(this.source.streamKey);
    await this.finishSession();
    await this.captions.close();
    this.setState('stopped', null);
    await this.report();
  }

  private async loop(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      const startedAt = Date.now();
      const reason = await this.runOnce();
      if (this.stopped) break;
      const hadAudio = this.lastAudioAt >= startedAt;
      if (hadAudio) {
        this.lostAt = this.lastAudioAt;
        void this.finishSession();
        this.deps.log.warn({ source: this.id, reason }, 'source dropped; reconnecting');
      }
      attempt = hadAudio && Date.now() - startedAt > STEADY_MS ? 1 : attempt + 1;
      this.setState(
        attempt > FAILED_AFTER ? 'failed' : 'reconnecting',
        explainReason(reason, reasonInputOf(this.source)),
      );
      this.deps.metrics.reconnects.inc();
      await this.pause(backoffMs(attempt));
    }
  }

  /** One ffmpeg run; resolves with why it ended. */
  private async runOnce(): Promise<string> {
    this.runNo += 1;
    let input: FfmpegInput;
    let closeProxy = () => {};
    try {
      const built = await openInput(this.source, this.deps, (reason) => this.onRefused(reason));
      input = built.input;
      closeProxy = built.close;
    } catch (error) {
      return (error as Error).message;
    }
    if (this.state !== 'failed' && this.state !== 'reconnecting') this.setState('connecting', null);
    const startedAt = Date.now();
    let refused: string | undefined;
    const run = runFfmpeg({
      ffmpegPath: this.deps.ffmpeg.path,
      args: ffmpegArgs(input, { threads: this.deps.ffmpeg.threads, caFile: this.deps.ffmpeg.caFile }),
      nice: this.deps.ffmpeg.nice,
      memoryMb: this.deps.ffmpeg.memoryMb,
      onFrame: (frame) => this.frame(frame),
    });
    this.ffmpeg = run;
    const proxyRefusal = (reason: string) => {
      refused ??= reason;
    };
    this.onRefused = proxyRefusal;
    let stall: string | undefined;
    const watchdog = setInterval(() => {
      const now = Date.now();
      if (this.lastAudioAt >= startedAt) {
        if (now - this.lastAudioAt > this.deps.stallSeconds * 1000) {
          stall = `no audio for ${this.deps.stallSeconds} s`;
          run.stop();
        } else if (now - this.lastVoicedAt > this.deps.silentSeconds * 1000) this.setState('silent', null);
      } else if (input.kind === 'pull' && now - startedAt > FIRST_AUDIO_SECONDS * 1000) {
        stall = `no audio within ${FIRST_AUDIO_SECONDS} s: ${NO_AUDIO_HINT}`;
        run.stop();
      } else if (input.kind === 'pull' && now - startedAt > NO_AUDIO_YET_SECONDS * 1000 && !this.reason)
        // A server that answers with what is no audio (a web page, noise) keeps ffmpeg probing
        // with no error until the restart above: the operator hears why meanwhile.
        this.setState(this.state, `no audio yet after ${NO_AUDIO_YET_SECONDS} s: ${NO_AUDIO_HINT}`);
    }, 500);
    const ended = await run.ended;
    clearInterval(watchdog);
    closeProxy();
    this.ffmpeg = undefined;
    return refused ? `refused: ${refused}` : (stall ?? ended);
  }

  private onRefused: (reason: string) => void = () => {};

  private frame(frame: Float32Array): void {
    const now = Date.now();
    const frameRms = rms(frame);
    const threshold = SENSITIVITY[this.source.settings.sensitivity];
    if (this.lastAudioAt === 0 || !this.session) this.lastVoicedAt = now;
    this.lastAudioAt = now;
    if (frameRms >= threshold) this.lastVoicedAt = now;
    this.level = smoothLevel(this.level, levelFromRms(frameRms));
    if (!this.session) this.openSession(now);
    if (this.state !== 'live' && now - this.lastVoicedAt <= this.deps.silentSeconds * 1000)
      this.setState('live', null);
    this.session?.push(frame, frameRms);
  }

  /** Audio (again): a new gateway stream, after a gap marker when the input had dropped. */
  private openSession(now: number): void {
    if (this.lostAt !== undefined) {
      const seconds = (now - this.lostAt) / 1000;
      this.lostAt = undefined;
      if (seconds >= MIN_GAP_SECONDS) void this.captions.gap(seconds, 'interrupted');
    }
    this.session = new SourceSession(
      this.id,
      this.runNo,
      { room: this.source.room, settings: this.source.settings },
      this.captions,
      this.deps,
    );
  }

  /** Ends the gateway stream of the last run (see `SourceSession.finish`). */
  private async finishSession(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    await session?.finish(this.stopped);
  }

  private setState(state: SourceState, reason: string | null): void {
    if (state === this.state && reason === this.reason) return;
    const changed = state !== this.state;
    this.state = state;
    this.reason = reason;
    if (changed) {
      this.since = Date.now();
      this.deps.log.info({ source: this.id, state, ...(reason ? { reason } : {}) }, 'source state');
      void this.report();
    }
  }

  status(): SourceStatus {
    return {
      state: this.state,
      reason:
        this.reason ??
        (this.state === 'live' || this.state === 'silent' ? (this.session?.gatewayAway ?? null) : null),
      level: Number(this.level.toFixed(3)),
      behindSeconds: Number((this.session?.pendingSeconds ?? 0).toFixed(2)),
      since: new Date(this.since).toISOString(),
      node: this.deps.node,
      ...(this.captions.writers !== undefined ? { roomWriters: this.captions.writers } : {}),
    };
  }

  private async report(): Promise<void> {
    // A level nobody refreshes (no audio) falls back, as the page's meter does.
    if (Date.now() - this.lastAudioAt > 500) this.level = smoothLevel(this.level, 0);
    await this.deps.repo.report(this.id, this.status()).catch(() => undefined);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
