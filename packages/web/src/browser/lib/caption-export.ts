/**
 * Exports of captions as files (pure): what went out, with the time it went out, as SRT, WebVTT
 * or text, through `@live-captions/caption-files` (the one writer of these formats). The editor
 * keeps a log of what it published, corrections replacing the text of their caption; the capture
 * page exports its transcript.
 */
import {
  CAPTION_FILE_TYPES,
  type CaptionFileFormat,
  captionFile,
  cuesOf,
  type TimedCaption,
} from '@live-captions/caption-files';
import type { SentEntry } from './editor-journal.js';

export const EXPORT_FORMATS: readonly CaptionFileFormat[] = ['srt', 'vtt', 'txt'];

export function isExportFormat(value: string): value is CaptionFileFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}

/** A caption file: its text, its MIME type and a name `<stem>.<format>`. */
export function exportFile(
  captions: readonly TimedCaption[],
  format: CaptionFileFormat,
  stem: string,
): { name: string; type: string; text: string } {
  return {
    name: `${stem}.${format}`,
    type: CAPTION_FILE_TYPES[format],
    text: captionFile(cuesOf(captions), format),
  };
}

/** `captions-YYYY-MM-DD-hhmm` for an instant (local time). */
export function exportStem(prefix: string, at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${prefix}-${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}`;
}

/** The editor's published captions by output id, in the order they went out. */
export class SentLog {
  private readonly entries = new Map<string, TimedCaption>();

  /**
   * A caption went out: a new id is added at `at`; a known id (a correction) keeps its time and
   * takes the new text; an empty text (taken off the screen) removes it.
   */
  record(id: string, text: string, at: number): void {
    const known = this.entries.get(id);
    if (!text) this.entries.delete(id);
    else if (known) known.text = text;
    else this.entries.set(id, { at, text });
  }

  /** With their output ids: two captions of the same text stay two cues. */
  get captions(): TimedCaption[] {
    return [...this.entries].map(([id, caption]) => ({ ...caption, id }));
  }

  get size(): number {
    return this.entries.size;
  }

  /** What the tab keeps (the newest `limit`), with the output ids. */
  kept(limit: number): SentEntry[] {
    return [...this.entries]
      .slice(-limit)
      .map(([id, caption]) => ({ id, text: caption.text, at: caption.at }));
  }

  /** Takes back what an earlier load kept, before anything new is recorded. */
  restore(entries: readonly SentEntry[]): void {
    for (const entry of entries) this.entries.set(entry.id, { at: entry.at, text: entry.text });
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }
}

/**
 * The capture page's transcript lines as timed captions (a translation as the second line): each
 * line is a caption of its own (its place is its id), whatever its text.
 */
export function transcriptCaptions(
  lines: readonly { at: Date; text: string; translation?: string }[],
): TimedCaption[] {
  return lines.map((line, index) => ({
    id: String(index),
    at: line.at.getTime(),
    text: line.translation ? `${line.text}\n${line.translation}` : line.text,
  }));
}
