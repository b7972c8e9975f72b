/**
 * The client side of the gateway's realtime protocol (OpenAI Realtime API, transcription
 * intent) as the capture page speaks it: where to connect, the subprotocols that carry the key,
 * and the `session.update` event (GA shape).
 */

import { REALTIME_RATE } from '@live-captions/audio';

/** The part of the browser's WebSocket the session uses (`ws` in node has the same), as the relay client's. */
export type { SocketLike as RealtimeSocket } from '@live-captions/relay-client';
/** The protocol's `audio/pcm` rate. */
export { REALTIME_RATE };

/** What `session.update` sets. */
export interface TranscriptionSettings {
  /** The gateway's model name (as `/health` reports it). */
  model: string;
  /** A language code, or `auto` to let the model detect it. */
  language: string;
  /**
   * `translate`: English text whatever the language spoken (the gateway's extension of
   * `audio.input.transcription`, whisper's translate task); sent only when asked for.
   */
  task?: 'transcribe' | 'translate';
  prompt?: string;
  /** `server_vad` settings (threshold, prefix_padding_ms, silence_duration_ms). */
  turnDetection?: { threshold?: number; prefix_padding_ms?: number; silence_duration_ms?: number };
}

/** The realtime endpoint next to a gateway base URL (`http(s)` becomes `ws(s)`). */
export function realtimeUrl(baseUrl: string): string {
  const url = new URL('v1/realtime?intent=transcription', baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** Subprotocols of a browser client: the key travels here since browsers cannot set headers. */
export function realtimeProtocols(apiKey: string | undefined): string[] {
  return apiKey ? ['realtime', `openai-insecure-api-key.${apiKey}`] : ['realtime'];
}

/**
 * The `session.update` event of a transcription session. Auto-detection is no language at the
 * start, and an explicit `null` when a session that had one changes to it (`reset`).
 */
export function sessionUpdate(options: TranscriptionSettings, reset = false) {
  const auto = !options.language || options.language === 'auto';
  return {
    type: 'session.update',
    session: {
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: REALTIME_RATE },
          transcription: {
            model: options.model,
            ...(auto ? (reset ? { language: null } : {}) : { language: options.language }),
            ...(options.prompt ? { prompt: options.prompt } : {}),
            ...(options.task ? { task: options.task } : {}),
          },
          turn_detection: { type: 'server_vad', ...options.turnDetection },
        },
      },
    },
  };
}
