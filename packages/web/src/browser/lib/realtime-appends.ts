/**
 * How the realtime session's audio goes out (no DOM): the kept audio not sent yet on this
 * connection, as PCM16 base64 `input_audio_buffer.append` events, batched every `sendEveryMs`
 * (100 ms by default) and cut so that no event carries more than 0.5 s; after an outage, paced.
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
 * Unsent audio past which the session is catching up after an outage: it then sends one append
 * at a time, and only while no utterance waits for its transcript, so that the gateway decodes
 * the backlog utterance by utterance instead of skipping it to the live edge as lag.
 */
const CATCH_UP_SAMPLES = REALTIME_RATE;

/**
 * The appends due now, marking their audio sent: none while less than `sendEveryMs` of it waits,
 * paced while catching up (`transcriptWaiting`: a committed utterance has no transcript yet),
 * unless `all` (Stop) asks for everything.
 */
export function dueAppends(
  kept: KeptAudio,
  all: boolean,
  sendEveryMs = SEND_EVERY_MS,
  transcriptWaiting = false,
): AppendEvent[] {
  const due = Math.round((sendEveryMs * REALTIME_RATE) / 1000);
  const unsent = kept.end - kept.sentUpTo;
  if (!all && unsent < due) return [];
  const maxAppends = all || unsent <= CATCH_UP_SAMPLES ? Number.POSITIVE_INFINITY : transcriptWaiting ? 0 : 1;
  const out: AppendEvent[] = [];
  for (const chunk of kept.unsent(MAX_APPEND_SAMPLES)) {
    out.push({ type: 'input_audio_buffer.append', audio: base64(encodePcm16(chunk)) });
    if (out.length >= maxAppends) break;
  }
  return out;
}
