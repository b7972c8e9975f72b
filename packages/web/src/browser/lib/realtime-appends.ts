/**
 * How the realtime session's audio goes out (no DOM): the kept audio not sent yet on this
 * connection, as PCM16 base64 `input_audio_buffer.append` events, batched every `sendEveryMs`
 * (100 ms by default) and cut so that no event carries more than 0.5 s.
 */
import { base64, encodePcm16 } from '@live-captions/audio';
import type { KeptAudio } from './realtime-kept-audio.js';
import { REALTIME_RATE } from './realtime-protocol.js';

/** Largest append: keeps each WebSocket frame well under the server's limit. */
const MAX_APPEND_SAMPLES = REALTIME_RATE / 2;

/** How often audio is sent while capturing, unless the session says otherwise. */
const SEND_EVERY_MS = 100;

export interface AppendEvent {
  type: 'input_audio_buffer.append';
  audio: string;
  [key: string]: unknown;
}

/**
 * The appends due now, marking their audio sent: none while less than `sendEveryMs` of it waits,
 * unless `all` (a new connection, or Stop) asks for everything.
 */
export function dueAppends(kept: KeptAudio, all: boolean, sendEveryMs = SEND_EVERY_MS): AppendEvent[] {
  const due = Math.round((sendEveryMs * REALTIME_RATE) / 1000);
  if (!all && kept.end - kept.sentUpTo < due) return [];
  return Array.from(kept.unsent(MAX_APPEND_SAMPLES), (chunk) => ({
    type: 'input_audio_buffer.append' as const,
    audio: base64(encodePcm16(chunk)),
  }));
}
