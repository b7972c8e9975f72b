/**
 * The output room as an audience reader sees it during a run: when each original caption arrived,
 * when each language's first translation of it arrived (the added latency, both stamped on this
 * one clock), and the latest text per id and language (the final live text, corrections included).
 */
import type { RelayCaption } from '@live-captions/protocol';
import { createReader, type RelayReader } from '@live-captions/relay-client/node';

interface Track {
  /** Arrival of the first translation per caption id, ms (performance.now()). */
  first: Map<string, number>;
  /** The latest text per caption id. */
  latest: Map<string, string>;
  /** Translation frames received (first translations and corrections). */
  frames: number;
}

export class RoomReader {
  private readonly reader: RelayReader;
  /** Arrival of each original caption, by id. */
  readonly originals = new Map<string, number>();
  readonly tracks = new Map<string, Track>();
  /** Frames this reader could not place: a translation without `ln`, another label. */
  unexpected = 0;
  gaps = 0;
  lastTranslationAt = 0;
  joined = false;

  constructor(options: { url: string; room: string; token: string }) {
    this.reader = createReader({
      ...options,
      onCaption: (caption) => this.take(caption),
      onGap: () => {
        this.gaps += 1;
      },
      onState: (event) => {
        if (event.state === 'joined') this.joined = true;
      },
    });
  }

  private take(caption: RelayCaption): void {
    const now = performance.now();
    if (caption.final === undefined) return;
    const id = String(caption.id);
    if (caption.label === undefined) {
      if (!this.originals.has(id)) this.originals.set(id, now);
      return;
    }
    if (caption.label !== 'translation' || !caption.ln) {
      this.unexpected += 1;
      return;
    }
    let track = this.tracks.get(caption.ln);
    if (!track) {
      track = { first: new Map(), latest: new Map(), frames: 0 };
      this.tracks.set(caption.ln, track);
    }
    if (!track.first.has(id)) track.first.set(id, now);
    track.latest.set(id, caption.final);
    track.frames += 1;
    this.lastTranslationAt = now;
  }

  /** Whether every id has reached the reader, and a translation of it in every language. */
  complete(ids: readonly string[], languages: readonly string[]): boolean {
    return ids.every(
      (id) => this.originals.has(id) && languages.every((ln) => this.tracks.get(ln)?.first.has(id) ?? false),
    );
  }

  /**
   * Per language: the added latency of each caption whose original and translation both arrived
   * (ms), the ids never translated, and the final live text (latest per id, in caption order).
   */
  figures(
    ids: readonly string[],
    ln: string,
  ): { latencies: number[]; missing: number; text: string; frames: number } {
    const track = this.tracks.get(ln);
    const latencies: number[] = [];
    let missing = 0;
    for (const id of ids) {
      const original = this.originals.get(id);
      const first = track?.first.get(id);
      if (original === undefined || first === undefined) missing += 1;
      else latencies.push(first - original);
    }
    const text = ids
      .map((id) => track?.latest.get(id) ?? '')
      .filter((piece) => piece !== '')
      .join(' ');
    return { latencies, missing, text, frames: track?.frames ?? 0 };
  }

  close(): void {
    this.reader.close();
  }
}
