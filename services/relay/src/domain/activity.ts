import type { Retained } from './history.js';

/** What the public "captioning now" page says of a room. */
export interface RoomActivity {
  /** When the room's last caption was taken (ms since 1970), or null. */
  lastAt: number | null;
  /** Captions taken in the last 60 s. */
  lastMinute: number;
  /** The original's language first (when its captions name one), then the translation tracks'. */
  languages: string[];
}

/** Languages are read from the captions of this last stretch (a track added, then unused, fades). */
export const LANGUAGES_WINDOW_MS = 10 * 60_000;

/**
 * A room's activity from its retained captions (oldest first). Reads at most the captions of the
 * last `LANGUAGES_WINDOW_MS`, newest first, and stops early at 500 frames: a busy room's languages
 * show in its last few hundred captions, and the page's answer stays cheap.
 */
export function roomActivity(entries: readonly Retained[], now: number): RoomActivity {
  const last = entries.at(-1);
  const original = new Set<string>();
  const tracks = new Set<string>();
  const cutoff = now - LANGUAGES_WINDOW_MS;
  for (let index = entries.length - 1, read = 0; index >= 0 && read < 500; index -= 1, read += 1) {
    const entry = entries[index]!;
    if (entry.at < cutoff) break;
    let caption: { label?: unknown; ln?: unknown };
    try {
      caption = JSON.parse(entry.frame.toString('utf8')) as { label?: unknown; ln?: unknown };
    } catch {
      continue;
    }
    if (typeof caption.ln !== 'string' || caption.ln === '') continue;
    (caption.label === 'translation' ? tracks : original).add(caption.ln);
  }
  const languages = [...original].sort();
  for (const ln of [...tracks].sort()) if (!original.has(ln)) languages.push(ln);
  return { lastAt: last?.at ?? null, lastMinute: takenSince(entries, now - 60_000), languages };
}

/** How many of `entries` (in the order taken) were taken after `cutoff`: a binary search. */
function takenSince(entries: readonly Retained[], cutoff: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (entries[middle]!.at <= cutoff) low = middle + 1;
    else high = middle;
  }
  return entries.length - low;
}
