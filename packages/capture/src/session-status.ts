/**
 * What a capture session reports to the page, whichever transport it uses (rolling windows,
 * capture-session.ts; realtime, realtime-session.ts): its state and figures.
 */

export type SessionState = 'capturing' | 'draining' | 'failed' | 'closed';

export interface SessionStatus {
  state: SessionState;
  /** A request is being sent, retried or processed. */
  inFlight: boolean;
  bufferedSeconds: number;
  /** Audio the gateway has committed so far. */
  committedSeconds: number;
  /** Audio captured but not yet captioned (the lag watchdog's figure; rolling windows). */
  backlogSeconds?: number;
  /** Audio skipped so far to catch up with the live edge (rolling windows). */
  skippedSeconds?: number;
  /** Last failure (state `failed`) or the retry in progress. */
  message?: string;
  /** The gateway is not answering: windows are being retried (`message` says when next). */
  retrying: boolean;
  /** The bound of the buffer, in seconds. */
  maxBufferedSeconds: number;
  /** Audio dropped so far because the buffer was full. */
  droppedSeconds: number;
}
