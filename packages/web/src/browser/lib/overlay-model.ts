/**
 * What the overlay shows (pure): the last `maxlines` captions, or only the latest with `clear`;
 * translations (label `translation`) only with `dual`; a caption with `c: true` clears; interim
 * text replaces the line of its id until the final arrives. A final already shown (same id and
 * text, e.g. resent by a publisher after a relay restart) is never shown twice.
 */
import type { RelayCaption } from '@live-captions/protocol';

export interface OverlayOptions {
  maxlines: number;
  clear: boolean;
  dual: boolean;
  /** Idle time after which the overlay empties; 0 keeps the text. */
  showtimeMs: number;
}

export interface OverlayLine {
  key: string;
  text: string;
  translation: boolean;
  interim: boolean;
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
  };
}

const SEEN_LIMIT = 500;

export class OverlayModel {
  lines: OverlayLine[] = [];
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];

  constructor(private readonly options: OverlayOptions) {}

  /** Applies a caption; returns whether the display changed. */
  apply(caption: RelayCaption): boolean {
    if (caption.c) {
      const had = this.lines.length > 0;
      this.lines = [];
      return had;
    }
    const translation = caption.label === 'translation';
    if (translation && !this.options.dual) return false;
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
    const line: OverlayLine = { key, text, translation, interim };
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
