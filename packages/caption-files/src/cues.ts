/**
 * From captions as they went out (a wall-clock instant and a text each) to cues with a start and an
 * end on the session's own clock. A caption has no end of its own: it stays until the next one
 * replaces it, so its cue ends where the next begins, at most `maxMs` after it started (a caption
 * followed by a long silence should not hang on screen through it).
 *
 * Two rules keep a file readable whatever the live path did:
 * - **No cue shorter than `minMs`** (1 s by default, `MIN_CUE_MS`). Captions that went out closer
 *   together than that (a timed queue released at once by a switch to live mode, a publisher's
 *   backlog after a relay outage) are spread out: each cue starts at least `minMs` after the one
 *   before it. The file then runs behind the live clock by at most `minMs` per caption of the
 *   burst, and catches up at the next pause longer than that.
 * - **One cue per caption**: a caption with the `id` of an earlier one (a correction, a resend
 *   after an outage, a replay) replaces that cue's text and keeps its time; any other caption is a
 *   cue of its own, whatever its text. "Aye." after "Aye." in a roll call is two votes, so text is
 *   never compared.
 */

/** One caption as it went out to the audience. */
export interface TimedCaption {
  /** When it went out, in epoch milliseconds. */
  at: number;
  /** Its text; `\n` separates lines. */
  text: string;
  /** The caption's id: a later caption with the same id is its correction. None: a caption of its own. */
  id?: string;
}

/** One cue of a caption file, in milliseconds from the session's start. */
export interface Cue {
  startMs: number;
  endMs: number;
  text: string;
}

export interface CueTiming {
  /** The instant that is 00:00:00.000 in the file. Default: the first caption's. */
  originMs?: number;
  /** Shortest cue. Default `MIN_CUE_MS`. */
  minMs?: number;
  /** Longest cue (never below `minMs`). Default `MAX_CUE_MS`. */
  maxMs?: number;
}

/**
 * The shortest cue a file holds: about the time a reader needs to take in a short caption (a few
 * words at 15-20 characters a second), above the 5/6 s that subtitling guides give as the floor.
 */
export const MIN_CUE_MS = 1000;
/** The longest cue: a caption left on screen through a silence is taken off after this. */
export const MAX_CUE_MS = 7000;

/** A caption's text as a reader sees it: lines trimmed, blank ones gone (the writers' rule too). */
const seen = (text: string) =>
  text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line !== '')
    .join('\n');

/**
 * Cues of captions in the order they went out: one per caption id (a correction replaces its text
 * in place; an empty correction takes it out), empty texts left out.
 */
export function cuesOf(captions: readonly TimedCaption[], timing: CueTiming = {}): Cue[] {
  const minMs = Math.max(1, timing.minMs ?? MIN_CUE_MS);
  const maxMs = Math.max(minMs, timing.maxMs ?? MAX_CUE_MS);
  const latest: TimedCaption[] = [];
  const byId = new Map<string, TimedCaption>();
  for (const caption of captions) {
    const known = caption.id === undefined ? undefined : byId.get(caption.id);
    if (known) known.text = caption.text;
    else {
      const copy = { ...caption };
      latest.push(copy);
      if (caption.id !== undefined) byId.set(caption.id, copy);
    }
  }
  const starts: { startMs: number; text: string }[] = [];
  let origin = timing.originMs;
  for (const caption of latest) {
    if (seen(caption.text) === '') continue;
    origin ??= caption.at;
    const last = starts.at(-1);
    const startMs = Math.max(0, caption.at - origin, last ? last.startMs + minMs : 0);
    starts.push({ startMs, text: caption.text });
  }
  return starts.map(({ startMs, text }, index) => {
    const next = starts[index + 1];
    // The next cue starts at least `minMs` later: ending there keeps cues apart and long enough.
    const endMs = Math.min(startMs + maxMs, next ? next.startMs : Number.POSITIVE_INFINITY);
    return { startMs, endMs, text };
  });
}
