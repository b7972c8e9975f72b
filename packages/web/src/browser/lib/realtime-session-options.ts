/**
 * What a realtime capture session is given (no DOM): where to connect, the transcription
 * settings, pacing, and the callbacks the page renders from; and the browser's WebSocket as the
 * default connection.
 */
import type { RetryOptions, SessionStatus } from '@live-captions/capture';
import type { RealtimeSocket, TranscriptionSettings } from './realtime-protocol.js';
import type { RealtimeFinal } from './realtime-transcripts.js';

export interface RealtimeSessionOptions extends TranscriptionSettings {
  /** `ws(s)://host/v1/realtime?intent=transcription` ({@link realtimeUrl}). */
  url: string;
  /** Service access token: sent as the `openai-insecure-api-key.<key>` subprotocol. */
  apiKey?: string;
  /** Rate of the frames given to `push`. */
  inputRate: number;
  sendEveryMs?: number;
  /**
   * How long Stop waits, once everything seems done, for the server's VAD to catch up with the
   * last audio (it runs behind it); default 500 ms.
   */
  settleMs?: number;
  connect?: (url: string, protocols: string[]) => RealtimeSocket;
  /** The reconnects' wait and jitter (tests inject them). */
  retry?: Pick<RetryOptions, 'sleep' | 'random'>;
  /** Audio kept for a gateway that is away before the oldest is dropped (default 120 s). */
  maxBufferedSeconds?: number;
  /** The oldest `seconds` of kept audio were dropped (the bound was reached): a gap. */
  onGap?: (seconds: number) => void;
  onPartial?: (text: string) => void;
  onFinal?: (final: RealtimeFinal) => void;
  onStatus?: (status: SessionStatus) => void;
}

export interface RealtimeErrorEvent {
  error?: { message?: string; code?: string; event_id?: string | null };
}

/** The browser's WebSocket (the page); tests give their own `connect`. */
export const browserSocket = (url: string, protocols: string[]) =>
  new (globalThis as unknown as { WebSocket: new (u: string, p: string[]) => RealtimeSocket }).WebSocket(
    url,
    protocols,
  );
