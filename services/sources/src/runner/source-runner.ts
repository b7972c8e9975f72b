/**
 * One source on the replica that holds its lease: ffmpeg (restarted with backoff whenever it ends
 * or stalls, for as long as the source should run) feeding the capture policy's `CaptureSession`
 * exactly as the capture page's microphone does, and every caption published to the event's source
 * room. Each ffmpeg run is one gateway stream: when the input drops, what is buffered is sent as
 * final and the stream closed; when audio comes back, a gap marker says how long nothing could be
 * heard, and a new stream starts. Nothing is captioned twice and nothing stops by itself.
 */
import {
  applyWordRules,
  backoffMs,
  type CaptionFrame,
  CaptureSession,
  captionFrames,
  type GapReason,
  gapFrame,
  hasText,
  levelFromRms,
  randomId,
  rms,
  SENSITIVITY,
  type SessionStatus,
  sleepOf,
  smoothLevel,
  windowCaption,
  withWords,
} from '@live-captions/capture';
import type { TaskMode } from '@live-captions/protocol';
import { createPublisher, type RelayPublisher } from '@live-captions/relay-client/node';
import type { Logger } from '@live-captions/runtime';
import type { EgressProxy } from '../adapters/egress-proxy.js';
import { checkedAddress } from '../adapters/egress-proxy.js';
import { type FfmpegRun, runFfmpeg } from '../adapters/ffmpeg-process.js';
import type { SourcesMetrics } from '../adapters/metrics.js';
import type { SourceRow, SourcesRepo } from '../adapters/sources-repo.js';
import type { AllowList } from '../domain/addresses.js';
import { type FfmpegInput, ffmpegArgs } from '../domain/ffmpeg-args.js';
import type { SourceState, SourceStatus } from '../domain/source.js';
import { hostOf, parsePullUrl } from '../domain/source-input.js';

export interface RunnerDeps {
  repo: SourcesRepo;
  proxy: EgressProxy;
  allowedHosts: AllowList;
  gatewayUrl: string;
  apiKey: string | undefined;
  relayUrl: string;
  /** The source room's write token, or undefined when the relay config has no such room. */
  writeToken: (room: string) => string | undefined;
  log: Logger;
  metrics: SourcesMetrics;
  node: string;
  ffmpeg: { path: string; threads: number; nice: number; memoryMb: number; caFile: string };
  /** Where this replica's push listeners are: nginx-rtmp's play address, the SRT bind address. */
  push: { rtmpPlay: string | undefined; srtBind: string };
  silentSeconds: number;
  stallSeconds: number;
}

/** A pull input that has not given audio this long after its start is restarted. */
const FIRST_AUDIO_SECONDS = 20;
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
  private session?: CaptureSession;
  private readonly publisher: RelayPublisher | undefined;
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
  /** Per frame published, in order: whether its ack counts as a caption sent (not a translation). */
  private readonly counted: boolean[] = [];

  constructor(
    private source: SourceRow,
    private readonly deps: RunnerDeps,
  ) {
    const token = deps.writeToken(source.room);
    this.publisher = token
      ? createPublisher({
          url: deps.relayUrl,
          room: source.room,
          token,
          onAck: () => this.sent(this.counted.shift() ?? false),
        })
      : undefined;
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
    this.session?.configure({
      language: source.settings.language,
      mode: source.settings.mode,
      prompt: source.settings.vocabulary,
      threshold: SENSITIVITY[source.settings.sensitivity],
      intervalSeconds: source.settings.intervalSeconds,
    });
  }

  /** Stops ffmpeg, sends what is buffered, closes the stream and the relay connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ffmpeg?.stop();
    this.wake?.();
    await this.done;
    clearInterval(this.reportTimer);
    await this.finishSession();
    // Give the relay a moment to ack the last captions.
    for (let i = 0; i < 20 && (this.publisher?.queued ?? 0) > 0; i++) await sleepOf()(100);
    this.publisher?.close();
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
      this.setState(attempt > FAILED_AFTER ? 'failed' : 'reconnecting', reason);
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
      const built = await this.input();
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
        stall = `no audio within ${FIRST_AUDIO_SECONDS} s`;
        run.stop();
      }
    }, 500);
    const ended = await run.ended;
    clearInterval(watchdog);
    closeProxy();
    this.ffmpeg = undefined;
    return refused ? `refused: ${refused}` : (stall ?? ended);
  }

  private onRefused: (reason: string) => void = () => {};

  /** What ffmpeg opens: a pull URL whose host was checked, or this replica's push listener. */
  private async input(): Promise<{ input: FfmpegInput; close: () => void }> {
    const { source, deps } = this;
    if (source.kind === 'rtmp-push') {
      if (!deps.push.rtmpPlay) throw new Error('this node has no RTMP listener (SOURCES_RTMP_PORT=0)');
      return {
        input: { kind: 'rtmp-push', url: `${deps.push.rtmpPlay}/${source.streamKey}` },
        close: () => {},
      };
    }
    if (source.kind === 'srt-push') {
      const passphrase = encodeURIComponent(source.streamKey ?? '');
      return {
        input: {
          kind: 'srt-push',
          url: `srt://${deps.push.srtBind}:${source.srtPort}?mode=listener&passphrase=${passphrase}&pbkeylen=32`,
        },
        close: () => {},
      };
    }
    const pull = parsePullUrl(source.url ?? '');
    if (pull.scheme === 'http' || pull.scheme === 'https') {
      // Every host ffmpeg asks the proxy for is checked there, segments and redirects included.
      const proxy = deps.proxy.open((reason) => this.onRefused(reason));
      return {
        input: { kind: 'pull', scheme: pull.scheme, url: pull.url.href, hls: pull.hls, proxyUrl: proxy.url },
        close: proxy.close,
      };
    }
    const address = await checkedAddress(hostOf(pull.url), deps.allowedHosts);
    // ffmpeg connects to the address checked here, not to a second DNS answer (TLS keeps the name).
    const url = new URL(pull.url.href);
    if (pull.scheme !== 'rtmps') url.hostname = address.includes(':') ? `[${address}]` : address;
    if (pull.scheme === 'srt') url.searchParams.set('mode', 'caller');
    return {
      input: { kind: 'pull', scheme: pull.scheme, url: url.href, hls: false, proxyUrl: '' },
      close: () => {},
    };
  }

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
      if (seconds >= MIN_GAP_SECONDS) void this.publishGap(seconds, 'interrupted');
    }
    const { settings } = this.source;
    const session = new CaptureSession({
      baseUrl: this.deps.gatewayUrl,
      streamId: randomId(`src${this.runNo}`).slice(0, 40),
      language: settings.language,
      mode: settings.mode,
      ...(settings.vocabulary ? { prompt: settings.vocabulary } : {}),
      ...(this.deps.apiKey ? { apiKey: this.deps.apiKey } : {}),
      room: this.source.room,
      threshold: SENSITIVITY[settings.sensitivity],
      intervalSeconds: settings.intervalSeconds,
      onResult: (result) => void this.publishWindow(result, settings.mode),
      onSkip: (seconds) => void this.publishGap(seconds, 'skipped'),
      onGap: (seconds) => void this.publishGap(seconds, 'dropped'),
      onStatus: (status) => this.sessionStatus(session, status),
    });
    this.session = session;
  }

  /** The gateway's side: away (retrying), or a refusal that retrying cannot change. */
  private sessionStatus(session: CaptureSession, status: SessionStatus): void {
    if (status.state === 'failed') {
      // Nobody is at a keyboard to press Retry: the refused window is forgotten (marked as a
      // gap) and the source carries on.
      this.deps.log.warn({ source: this.id, reason: status.message }, 'the gateway refused a window');
      void this.publishGap(status.bufferedSeconds, 'dropped');
      void session.discard();
    }
  }

  private async finishSession(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    await session?.stop();
  }

  private async publishWindow(result: Parameters<typeof windowCaption>[0], mode: TaskMode): Promise<void> {
    const words = (text: string) =>
      applyWordRules(text, {
        replacements: this.source.settings.replacements,
        maskProfanity: this.source.settings.maskProfanity,
      });
    const caption = withWords(windowCaption(result, mode), words);
    if (!hasText(caption)) return;
    const id = await this.captionId();
    for (const frame of captionFrames(caption, id)) this.publish(frame, frame.label === undefined);
  }

  private async publishGap(seconds: number, reason: GapReason): Promise<void> {
    if (seconds <= 0) return;
    this.deps.log.info({ source: this.id, seconds: Number(seconds.toFixed(1)), reason }, 'gap marked');
    this.publish(gapFrame(seconds, reason, await this.captionId()), false);
  }

  /** `<source id's first 8>-<n>`, numbered on in the database across restarts and replicas. */
  private async captionId(): Promise<string> {
    const n = await this.deps.repo.nextCaption(this.id);
    return `${this.id.slice(0, 8)}-${n}`;
  }

  private publish(frame: CaptionFrame, counts: boolean): void {
    if (this.publisher?.publish(frame)) this.counted.push(counts);
    else if (this.publisher) this.deps.log.warn({ source: this.id }, 'relay queue full; caption not sent');
  }

  private sent(counts: boolean): void {
    if (!counts) return;
    this.deps.metrics.captions.inc();
    void this.deps.repo.countSent(this.id, 1).catch(() => undefined);
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
      reason: this.reason,
      level: Number(this.level.toFixed(3)),
      behindSeconds: Number((this.session?.buffer.pendingSeconds ?? 0).toFixed(2)),
      since: new Date(this.since).toISOString(),
      node: this.deps.node,
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
