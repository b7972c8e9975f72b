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
 * Unsent audio past which the session is catching up after an outage. The gateway's VAD runs
 * behind what it is sent and its lag watchdog skips committed utterances once more than one waits
 * with over 8 s of audio: a burst of the backlog would be skipped as lag. So the backlog goes out
 * at most {@link CATCH_UP_SPEED} times as fast as the microphone fills it, and not at all while a
 * committed utterance waits for its transcript: the gateway decodes it utterance by utterance.
 */
const CATCH_UP_SAMPLES = REALTIME_RATE;
export const CATCH_UP_SPEED = 3;

/**
 * The appends due now, marking their audio sent: none while less than `sendEveryMs` of it waits,
 * unless `all` (Stop) asks for everything. While catching up, at most `budget` samples, and none
 * while `transcriptWaiting` (a committed utterance has no transcript yet).
 */
export function dueAppends(
  kept: KeptAudio,
  all: boolean,
  sendEveryMs = SEND_EVERY_MS,
  catchUp: { budget: number; transcriptWaiting: boolean } = { budget: 0, transcriptWaiting: false },
): AppendEvent[] {
  const due = Math.round((sendEveryMs * REALTIME_RATE) / 1000);
  const unsent = kept.end - kept.sentUpTo;
  if (!all && unsent < due) return [];
  const paced = !all && unsent > CATCH_UP_SAMPLES;
  let budget = !paced ? Number.POSITIVE_INFINITY : catchUp.transcriptWaiting ? 0 : catchUp.budget;
  const out: AppendEvent[] = [];
  while (budget > 0 && kept.sentUpTo < kept.end) {
    const [chunk] = kept.unsent(Math.min(MAX_APPEND_SAMPLES, budget));
    if (!chunk) break;
    budget -= chunk.length;
    out.push({ type: 'input_audio_buffer.append', audio: base64(encodePcm16(chunk)) });
  }
  return out;
}
