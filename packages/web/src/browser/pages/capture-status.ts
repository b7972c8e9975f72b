/**
 * The capture page's status line and failure text for a session's status (pure strings). Both
 * transports carry on capturing while the gateway is away or their sending is stopped by a
 * refusal.
 */
import type { SessionStatus } from '@live-captions/capture';
import { formatSeconds } from '../lib/dom.js';

export type Tone = 'ok' | 'busy' | 'warn' | 'error' | 'idle';

export interface SessionLine {
  text: string;
  tone: Tone;
  /** The failure panel's text (state `failed`). */
  failure?: string;
}

export function sessionLine(status: SessionStatus): SessionLine {
  const dropped =
    status.droppedSeconds > 0 ? ` · ${formatSeconds(status.droppedSeconds)} dropped (buffer full)` : '';
  const kept = `${formatSeconds(status.bufferedSeconds)} of audio kept (up to ${formatSeconds(status.maxBufferedSeconds)})`;
  const figures =
    [
      `buffered ${formatSeconds(status.bufferedSeconds)}`,
      `captioned ${formatSeconds(status.committedSeconds)}`,
      // The lag watchdog's figures, once there are any.
      ...((status.backlogSeconds ?? 0) >= 1 ? [`behind ${formatSeconds(status.backlogSeconds ?? 0)}`] : []),
      ...((status.skippedSeconds ?? 0) > 0
        ? [`skipped ${formatSeconds(status.skippedSeconds ?? 0)} to the live edge`]
        : []),
    ].join(' · ') + dropped;
  switch (status.state) {
    case 'capturing':
      return {
        text: status.retrying
          ? `Listening · ${status.message ?? 'retrying'} · ${kept}${dropped}`
          : (status.message ?? `${status.inFlight ? 'Listening · processing' : 'Listening'} · ${figures}`),
        tone: status.retrying || status.message || dropped ? 'warn' : 'ok',
      };
    case 'draining':
      return { text: status.message ?? `Finishing · sending the rest · ${figures}`, tone: 'busy' };
    case 'failed':
      return {
        text: `Listening · sending stopped, audio kept · ${kept}${dropped}`,
        tone: 'error',
        failure: `The speech service refused the audio: ${status.message ?? 'unknown error'}. Capture carries on: ${kept}. Retry sends it again and continues; Discard forgets it and continues.`,
      };
    case 'closed':
      return { text: `Stopped · ${figures}`, tone: 'idle' };
  }
}
