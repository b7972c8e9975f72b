/**
 * From captions as they went out (a wall-clock instant and a text each) to cues with a start and an
 * end on the session's own clock. A caption has no end of its own: it stays until the next one
 * replaces it, so its cue ends where the next begins, held at least `minMs` (a flash nobody can
 * read helps no one) and at most `maxMs` (a caption followed by a long silence should not hang on
 * screen through it).
 */

/** One caption as it went out to the audience. */
export interface TimedCaption {
  /** When it went out, in epoch milliseconds. */
  at: number;
  /** Its text; `\n` separates lines. */
  text: string;
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
  /** Shortest cue, unless the next caption comes sooner. Default 1000. */
  minMs?: number;
  /** Longest cue. Default 7000. */
  maxMs?: number;
}

/** Cues of captions in the order they went out; empty texts are left out. */
export function cuesOf(captions: readonly TimedCaption[], timing: CueTiming = {}): Cue[] {
  const shown = captions.filter((caption) => caption.text.trim() !== '');
  const origin = timing.originMs ?? shown[0]?.at ?? 0;
  const minMs = timing.minMs ?? 1000;
  const maxMs = timing.maxMs ?? 7000;
  return shown.map((caption, index) => {
    const startMs = Math.max(0, caption.at - origin);
    const next = shown[index + 1];
    const nextStart = next === undefined ? Number.POSITIVE_INFINITY : Math.max(startMs, next.at - origin);
    const held = Math.min(startMs + maxMs, Math.max(startMs + minMs, nextStart));
    // The next caption replaces this one on screen: never let two cues overlap.
    const endMs = Math.min(held, Math.max(nextStart, startMs + 1));
    return { startMs, endMs, text: caption.text };
  });
}
