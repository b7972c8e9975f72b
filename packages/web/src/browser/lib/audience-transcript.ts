/**
 * What the audience page shows (pure): every caption of the session in arrival order, each with
 * its variants (transcript, translations; told apart by `label` and `ln`). A caption whose `id`
 * arrives again replaces its earlier text in place (interim text, then the final, then an
 * editor's correction); an empty final takes it away. Duplicate positions never reach here (the
 * relay reader drops them), and the same text again is no change, so a caption resent after a
 * relay restart is never shown twice.
 */
import type { RelayCaption } from '@live-captions/protocol';
import { ALL_LANGUAGES, trackKeyOf } from './languages.js';

/**
 * A stream of the room: the original (`key` "original", in a language when its captions carry
 * `ln`) or a translation (`key` its language, languages.ts).
 */
export interface Track {
  key: string;
  translation: boolean;
  ln?: string;
}

export interface Part {
  track: Track;
  text: string;
  interim: boolean;
}

export interface Line {
  id: string;
  parts: Part[];
}

export type Change =
  | { kind: 'none' }
  /** `id` appeared, changed or went; `final`: its text for this track is final (announce it). */
  | { kind: 'added' | 'updated' | 'removed'; id: string; track: Track; final: boolean; text: string };

/** A caption as the tab keeps it (a reload applies them again): one per id and track. */
export interface KeptCaption {
  id: string;
  text: string;
  translation?: true;
  ln?: string;
  interim?: true;
}

/** Show every track, or only the one with this key. */
export const ALL_TRACKS = ALL_LANGUAGES;

/** A session's captions kept in the page; the oldest go beyond `limit` (a day-long event). */
export const TRANSCRIPT_LIMIT = 3000;

export function trackOf(caption: Pick<RelayCaption, 'label' | 'ln'>): Track {
  const translation = caption.label === 'translation';
  const ln = caption.ln?.trim() || undefined;
  return {
    key: trackKeyOf(caption),
    translation,
    ...(ln ? { ln } : {}),
  };
}

export class AudienceTranscript {
  /** Insertion order is the order captions first arrived. */
  private readonly entries = new Map<string, Map<string, Part>>();
  /** Each caption's place in arrival order (kept as captions go at the limit). */
  private readonly arrival = new Map<string, number>();
  private arrived = 0;
  private readonly seenTracks = new Map<string, Track>();
  /** Per track, the arrival place of the first caption after it was first seen. */
  private readonly trackFrom = new Map<string, number>();
  /** Ids dropped at the limit since the last `takeDropped`. */
  private dropped: string[] = [];

  constructor(private readonly limit = TRANSCRIPT_LIMIT) {}

  /** The tracks seen so far, transcripts first, in the order they appeared. */
  get tracks(): Track[] {
    const all = [...this.seenTracks.values()];
    return [...all.filter((t) => !t.translation), ...all.filter((t) => t.translation)];
  }

  get size(): number {
    return this.entries.size;
  }

  apply(caption: RelayCaption): Change {
    // `c` clears an overlay's screen; the audience keeps the session's text.
    if (caption.c) return { kind: 'none' };
    const id = String(caption.id);
    const track = trackOf(caption);
    const final = caption.final !== undefined;
    const text = (caption.final ?? caption.interm ?? '').trim();
    const entry = this.entries.get(id);
    const existing = entry?.get(track.key);
    if (!text) {
      if (!entry || !existing) return { kind: 'none' };
      entry.delete(track.key);
      if (entry.size === 0) this.entries.delete(id);
      return { kind: 'removed', id, track, final, text };
    }
    if (existing && existing.text === text && existing.interim === !final) return { kind: 'none' };
    if (!this.seenTracks.has(track.key)) {
      this.seenTracks.set(track.key, track);
      // A language added to the room now: the captions from before it show in the original.
      this.trackFrom.set(track.key, entry ? (this.arrival.get(id) ?? this.arrived) : this.arrived + 1);
    }
    const part: Part = { track, text, interim: !final };
    if (entry) {
      entry.set(track.key, part);
      return { kind: existing ? 'updated' : 'added', id, track, final, text };
    }
    this.entries.set(id, new Map([[track.key, part]]));
    this.arrival.set(id, ++this.arrived);
    while (this.entries.size > this.limit) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.arrival.delete(oldest);
      this.dropped.push(oldest);
    }
    return { kind: 'added', id, track, final, text };
  }

  /**
   * The line of `id` with the parts `show` selects (all tracks, or one), or null when none. A
   * caption from before the chosen language was added to the room (it will never be translated)
   * shows in the original instead; one after it waits for its translation.
   */
  line(id: string, show: string = ALL_TRACKS): Line | null {
    const entry = this.entries.get(id);
    if (!entry) return null;
    const all = [...entry.values()];
    let parts = all.filter((part) => show === ALL_TRACKS || part.track.key === show);
    const from = this.trackFrom.get(show);
    if (
      parts.length === 0 &&
      this.seenTracks.get(show)?.translation &&
      (this.arrival.get(id) ?? 0) < (from ?? 0)
    )
      parts = all.filter((part) => !part.track.translation);
    parts.sort((a, b) => Number(a.track.translation) - Number(b.track.translation));
    return parts.length > 0 ? { id, parts } : null;
  }

  /** Every line that has something for `show`, oldest first. */
  lines(show: string = ALL_TRACKS): Line[] {
    const out: Line[] = [];
    for (const id of this.entries.keys()) {
      const line = this.line(id, show);
      if (line) out.push(line);
    }
    return out;
  }

  /** The newest `limit` captions' texts, oldest first, to keep for a reload. */
  kept(limit = this.limit): KeptCaption[] {
    const ids = [...this.entries.keys()].slice(-limit);
    return ids.flatMap((id) =>
      [...this.entries.get(id)!.values()].map((part) => ({
        id,
        text: part.text,
        ...(part.track.translation ? { translation: true as const } : {}),
        ...(part.track.ln ? { ln: part.track.ln } : {}),
        ...(part.interim ? { interim: true as const } : {}),
      })),
    );
  }

  /** Applies what an earlier load kept (before the relay replays what came after it). */
  restore(kept: readonly KeptCaption[]): void {
    for (const caption of kept) {
      if (typeof caption?.id !== 'string' || typeof caption.text !== 'string') continue;
      const text = caption.interim ? { interm: caption.text } : { final: caption.text };
      this.apply({
        msg: true,
        id: caption.id,
        ...text,
        ...(caption.translation ? { label: 'translation' } : {}),
        ...(typeof caption.ln === 'string' ? { ln: caption.ln } : {}),
        relay: { epoch: '', sequence: 0 },
      } as RelayCaption);
    }
    this.dropped = [];
  }

  /** Ids dropped at the limit since the last call (their elements go too). */
  takeDropped(): string[] {
    const dropped = this.dropped;
    this.dropped = [];
    return dropped;
  }
}
