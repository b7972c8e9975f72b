/**
 * One gateway stream of a source: the capture policy's `CaptureSession` for one ffmpeg run, its
 * answers published by `SourceCaptions`. It says when the gateway does not answer (the capture
 * page's words), forgets a window the gateway refuses for good (nobody is at a keyboard to press
 * Retry: marked as a gap), and when the source is stopped waits for the gateway only so long.
 */
import { CaptureSession, randomId, SENSITIVITY, type SessionStatus } from '@live-captions/capture';
import type { Logger } from '@live-captions/runtime';
import type { SourceSettings } from '../domain/source.js';
import type { SourceCaptions } from './source-captions.js';

export interface SessionDeps {
  gatewayUrl: string;
  apiKey: string | undefined;
  log: Logger;
}

/** How long a stop waits for the gateway to take the last audio. */
const DRAIN_MS = 10_000;

/** The capture session's retry wait, cut short (rejected) once `signal` aborts. */
function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('stopped'));
    const done = () => {
      clearTimeout(timer);
      reject(new Error('stopped'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', done);
      resolve();
    }, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export class SourceSession {
  private readonly capture: CaptureSession;
  /** Ends the retries of a stop that has waited long enough. */
  private readonly drain = new AbortController();
  /** The capture session's words while the gateway does not answer; null while it does. */
  gatewayAway: string | null = null;

  constructor(
    private readonly sourceId: string,
    runNo: number,
    { room, settings }: { room: string; settings: SourceSettings },
    captions: SourceCaptions,
    private readonly deps: SessionDeps,
  ) {
    this.capture = new CaptureSession({
      baseUrl: deps.gatewayUrl,
      streamId: randomId(`src${runNo}`).slice(0, 40),
      language: settings.language,
      mode: settings.mode,
      ...(settings.vocabulary ? { prompt: settings.vocabulary } : {}),
      ...(deps.apiKey ? { apiKey: deps.apiKey } : {}),
      // Its turn at the gateway's decode slots is its room's (round robin across rooms).
      room,
      threshold: SENSITIVITY[settings.sensitivity],
      intervalSeconds: settings.intervalSeconds,
      onResult: (result) => void captions.window(result, settings.mode),
      onSkip: (seconds) => void captions.gap(seconds, 'skipped'),
      onGap: (seconds) => void captions.gap(seconds, 'dropped'),
      onStatus: (status) => this.status(status, captions),
      retry: { sleep: (ms) => abortableSleep(ms, this.drain.signal) },
    });
  }

  push(frame: Float32Array, frameRms: number): void {
    this.capture.push(frame, frameRms);
  }

  /** New capture settings apply to the next windows. */
  configure(settings: SourceSettings): void {
    this.capture.configure({
      language: settings.language,
      mode: settings.mode,
      prompt: settings.vocabulary,
      threshold: SENSITIVITY[settings.sensitivity],
      intervalSeconds: settings.intervalSeconds,
    });
  }

  /** Audio received and not yet captioned, seconds. */
  get pendingSeconds(): number {
    return this.capture.buffer.pendingSeconds;
  }

  /**
   * Sends what is buffered with `final=1` and closes the stream. `stopping` (the source is being
   * stopped or removed): waits at most `DRAIN_MS` for a gateway that does not answer, since the
   * operator's Stop must not hang on it. An input that merely dropped waits as long as it takes.
   */
  async finish(stopping: boolean): Promise<void> {
    this.gatewayAway = null;
    const bounded = stopping
      ? setTimeout(() => {
          this.deps.log.warn(
            { source: this.sourceId, seconds: Number(this.capture.status.bufferedSeconds.toFixed(1)) },
            'stopped while the gateway does not answer; its last audio is not captioned',
          );
          this.drain.abort();
        }, DRAIN_MS)
      : undefined;
    await this.capture.stop();
    clearTimeout(bounded);
  }

  /** The gateway's side: away (retrying), or a refusal that retrying cannot change. */
  private status(status: SessionStatus, captions: SourceCaptions): void {
    // While the gateway is away the audio is kept and `behindSeconds` climbs: the reason says so,
    // in the capture page's own words ("Speech service not answering (...); retrying in 4.0 s").
    this.gatewayAway = status.retrying ? (status.message ?? 'Speech service not answering') : null;
    if (status.state === 'failed' && !this.drain.signal.aborted) {
      // Nobody is at a keyboard to press Retry: the refused window is forgotten (marked as a
      // gap) and the source carries on.
      this.deps.log.warn({ source: this.sourceId, reason: status.message }, 'the gateway refused a window');
      void captions.gap(status.bufferedSeconds, 'dropped');
      void this.capture.discard();
    }
  }
}
