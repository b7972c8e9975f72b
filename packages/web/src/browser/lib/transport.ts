/**
 * The capture page's two transports (pure). `rolling`: the page cuts fixed windows and posts
 * them to `POST /transcribe` (every gateway has it; the default). `realtime`: one WebSocket to
 * `/v1/realtime?intent=transcription`, the server's Silero VAD cuts utterances and partial text
 * arrives while the person speaks (the gateway needs a VAD model for it).
 */
import type { Sensitivity, SessionStatus } from '@live-captions/capture';

export const TRANSPORTS = ['rolling', 'realtime'] as const;
export type Transport = (typeof TRANSPORTS)[number];
export const DEFAULT_TRANSPORT: Transport = 'rolling';

/** A transport name from a URL parameter or saved settings; anything else is the default. */
export function parseTransport(value: string | undefined | null): Transport {
  return TRANSPORTS.includes(value as Transport) ? (value as Transport) : DEFAULT_TRANSPORT;
}

/**
 * The page's sensitivity as the server VAD's speech probability threshold: a noisy room needs
 * more certainty before an utterance starts, a quiet one catches soft speech (Silero's default
 * is 0.5).
 */
export const VAD_THRESHOLD: Readonly<Record<Sensitivity, number>> = { quiet: 0.4, normal: 0.5, noisy: 0.6 };

/** What the page drives, whichever the transport. */
export interface CaptionSession {
  readonly status: SessionStatus;
  readonly hasPendingAudio: boolean;
  push(frame: Float32Array, frameRms?: number): void;
  stop(): Promise<void>;
  retry(): Promise<void>;
  discard(): Promise<void>;
}
