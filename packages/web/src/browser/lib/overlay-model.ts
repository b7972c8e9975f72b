/**
 * What the overlay shows (pure): the last `maxlines` captions, or only the latest with `clear`;
 * one track of the room (`ln`: the original by default, or one language's translation) and, with
 * `dual`, the original with the translations (with `ln`, with that one); a caption with `c: true`
 * clears (the original's, an editor's "Clear overlay", or the shown translation's; another
 * language's clear is not this overlay's); interim text replaces the line of its id until the
 * final arrives. A final already shown (same id and text, e.g. resent by a publisher after a relay
 * restart) is never shown twice.
 */
import type { RelayCaption } from '@live-captions/protocol';
import { ALL_LANGUAGES, linkTrack, ORIGINAL, trackKeyOf } from './languages.js';

export interface OverlayOptions {
  maxlines: number;
  clear: boolean;
  dual: boolean;
  /** Idle time after which the overlay empties; 0 keeps the text. */
  showtimeMs: number;
  /** The track shown: `original` (the default) or a translation's language (`ln=` in the link). */
  track?: string;
}

export interface OverlayLine {
  key: string;
  text: string;
  translation: boolean;
  interim: boolean;
  /** The caption's language (`ln`): the line's `lang`, so a translation is read in its language. */
  ln?: string;
}

/**
 * The idle clear waits longer than the longest capture window (9 s) plus its transcription, so
 * that the overlay never blanks between consecutive captions of continuous speech.
 */
export const OVERLAY_SHOWTIME_MS = 12_000;
export const OVERLAY_DEFAULTS: OverlayOptions = {
  maxlines: 3,
  clear: false,
  dual: false,
  showtimeMs: OVERLAY_SHOWTIME_MS,
  track: ORIGINAL,
};

/** Reads the overlay's options from page parameters, falling back to the defaults on bad values. */
export function overlayOptions(get: (name: string) => string | undefined): OverlayOptions {
  const int = (name: string, min: number, max: number, fallback: number) => {
    const value = Number(get(name));
    return get(name) !== undefined && Number.isInteger(value) && value >= min && value <= max
      ? value
      : fallback;
  };
  const flag = (name: string) => ['1', 'true', 'yes'].includes((get(name) ?? '').toLowerCase());
  return {
    maxlines: int('maxlines', 1, 20, OVERLAY_DEFAULTS.maxlines),
    clear: flag('clear'),
    dual: flag('dual'),
    showtimeMs: int('showtime', 0, 3_600_000, OVERLAY_DEFAULTS.showtimeMs),
    // One track on a picture: `all` (the audience page's) is no overlay's choice.
    track: ((track) => (track && track !== ALL_LANGUAGES ? track : ORIGINAL))(linkTrack(get('ln'))),
  };
}

const SEEN_LIMIT = 500;

export class OverlayModel {
  lines: OverlayLine[] = [];
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];

  private readonly track: string;

  constructor(private readonly options: OverlayOptions) {
    this.track = options.track ?? ORIGINAL;
  }

  /** Applies a caption; returns whether the display changed. */
  apply(caption: RelayCaption): boolean {
    const track = trackKeyOf(caption);
    if (caption.c) {
      if (track !== ORIGINAL && track !== this.track) return false;
      const had = this.lines.length > 0;
      this.lines = [];
      return had;
    }
    if (!this.shows(track)) return false;
    // The chosen track is the main line; with `dual`, the other beside it is the smaller one
    // (`translation`: the original under `ln=es`, the translations without `ln`).
    const translation = track !== this.track;
    const key = `${translation ? 't' : 's'}:${String(caption.id)}`;
    const interim = caption.final === undefined;
    const text = (caption.final ?? caption.interm ?? '').trim();
    if (!interim) {
      const signature = `${key}\u0000${text}`;
      if (this.seen.has(signature)) return false;
      this.remember(signature);
    }
    const existing = this.lines.findIndex((line) => line.key === key);
    if (!text) {
      if (existing < 0) return false;
      this.lines.splice(existing, 1);
      return true;
    }
    const ln = caption.ln?.trim();
    const line: OverlayLine = { key, text, translation, interim, ...(ln ? { ln } : {}) };
    if (existing >= 0) {
      this.lines[existing] = line;
    } else if (this.options.clear) {
      // Replace mode: a translation joins its transcript; anything else starts afresh.
      const partner = this.lines.find((other) => other.key.slice(2) === key.slice(2));
      this.lines = partner ? [partner, line] : [line];
    } else {
      this.lines.push(line);
    }
    this.trim();
    return true;
  }

  /**
   * Lines an earlier load showed (a reload): shown again, their finals remembered so that a
   * resend is not shown twice. Returns whether there is anything to show.
   */
  restore(lines: readonly OverlayLine[]): boolean {
    this.lines = lines
      .filter((line) => typeof line?.key === 'string' && typeof line.text === 'string')
      .map((line) => ({
        key: line.key,
        text: line.text,
        translation: line.translation === true,
        interim: line.interim === true,
        ...(typeof line.ln === 'string' && line.ln ? { ln: line.ln } : {}),
      }));
    for (const line of this.lines) if (!line.interim) this.remember(`${line.key}\u0000${line.text}`);
    this.trim();
    return this.lines.length > 0;
  }

  /** Whether a caption of `track` is this overlay's: its track, and the original beside it with `dual`. */
  private shows(track: string): boolean {
    if (track === this.track) return true;
    if (!this.options.dual) return false;
    // dual: the original and the translations, or the original and the one chosen.
    return this.track === ORIGINAL ? true : track === ORIGINAL;
  }

  /** Idle timeout reached. */
  clearAll(): boolean {
    const had = this.lines.length > 0;
    this.lines = [];
    return had;
  }

  private trim(): void {
    // With dual, a transcript and its translation together count as one caption.
    const groups = [...new Set(this.lines.map((line) => line.key.slice(2)))];
    const keep = new Set(groups.slice(-this.options.maxlines));
    this.lines = this.lines.filter((line) => keep.has(line.key.slice(2)));
  }

  private remember(signature: string): void {
    this.seen.add(signature);
    this.seenOrder.push(signature);
    if (this.seenOrder.length > SEEN_LIMIT) this.seen.delete(this.seenOrder.shift()!);
  }
}
