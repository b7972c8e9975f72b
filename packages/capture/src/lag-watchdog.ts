/**
 * The capture page's lag watchdog (rolling windows): with more audio waiting than the bound, the
 * oldest is dropped so captions follow the speaker again, and the gateway hears of the backlog and
 * the skips (for its /health and metrics). Audio kept through a gateway outage is owed to the
 * audience (nothing within the buffer's bound is lost): after an outage the watchdog waits until
 * that backlog has drained below its bound once, since it is the outage's, not a slow decoder's.
 */
import type { RollingBuffer } from './rolling-buffer.js';

/** The gateway's default lag bound (CAPTION_LAG_BOUND_SECONDS). */
export const LAG_BOUND_SECONDS = 8;
/** Audio kept when skipping to the live edge: the newest words, enough for a window. */
const LIVE_EDGE_KEEP_SECONDS = 2;

export class LagWatchdog {
  /** Audio skipped so far. */
  skipped = 0;
  /** Skipped seconds not yet told to the gateway (X-Caption-Skipped of the next window). */
  private unreported = 0;
  private drainingOutage = false;

  constructor(
    private readonly buffer: RollingBuffer,
    private readonly boundSeconds = LAG_BOUND_SECONDS,
  ) {}

  /** The gateway stopped answering: what piles up now is the outage's backlog. */
  outage(): void {
    this.drainingOutage = true;
  }

  /**
   * After a window's answer (the skips so far are told with it): while `capturing`, skips to the
   * live edge when too far behind. Returns the seconds skipped now.
   */
  answered(capturing: boolean): number {
    this.unreported = 0;
    if (!capturing) return 0;
    if (this.drainingOutage) {
      if (this.buffer.pendingSeconds <= this.boundSeconds) this.drainingOutage = false;
      return 0;
    }
    if (this.buffer.pendingSeconds <= this.boundSeconds) return 0;
    const seconds = this.buffer.skipToLiveEdge(LIVE_EDGE_KEEP_SECONDS);
    if (seconds <= 0) return 0;
    this.skipped += seconds;
    this.unreported += seconds;
    return seconds;
  }

  /** The backlog (and skips since the last window) for the gateway. */
  headers(): Record<string, string> {
    return {
      'X-Caption-Backlog': this.buffer.pendingSeconds.toFixed(2),
      ...(this.unreported > 0 ? { 'X-Caption-Skipped': this.unreported.toFixed(2) } : {}),
    };
  }
}
