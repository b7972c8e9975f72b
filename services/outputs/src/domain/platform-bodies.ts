/**
 * The bodies of the platforms' POSTs, fixed once per `seq` (a retry sends the same bytes).
 */
import { screensOf } from './shape.js';

/** A caption waiting in a destination's outbox. */
export interface PendingCaption {
  /** When the relay took the caption (epoch ms; when it reached this service from an older relay). */
  at: number;
  text: string;
}

export const YOUTUBE_WIDTH = 40;
export const ZOOM_WIDTH = 32;
/**
 * Spacing of the screens of one long caption on YouTube's timeline: they follow each other
 * instead of all showing at once (YouTube places each block at its timestamp).
 */
export const YOUTUBE_SCREEN_SPACING_MS = 1500;

/** `YYYY-MM-DDTHH:MM:SS.mmm` in UTC, YouTube's timestamp line. */
export const youtubeTimestamp = (ms: number) => new Date(ms).toISOString().slice(0, 23);

/**
 * YouTube: one block per screen, `timestamp\ntext\n`, lines joined with `<br>`; `offsetMs` is
 * YouTube's clock minus ours, so the timestamps are on YouTube's clock.
 */
export function youtubeBody(captions: readonly PendingCaption[], offsetMs: number): string {
  let body = '';
  for (const caption of captions) {
    screensOf(caption.text, YOUTUBE_WIDTH).forEach((screen, index) => {
      const at = caption.at + offsetMs + index * YOUTUBE_SCREEN_SPACING_MS;
      body += `${youtubeTimestamp(at)}\n${screen.join('<br>')}\n`;
    });
  }
  return body;
}

/** Zoom: the text only, lines of 32 characters joined with `\n` (captions batched in order). */
export function zoomBody(captions: readonly PendingCaption[]): string {
  return captions
    .flatMap((caption) => screensOf(caption.text, ZOOM_WIDTH).map((screen) => screen.join('\n')))
    .join('\n');
}

/**
 * YouTube's answer carries its server time (`YYYY-MM-DDTHH:MM:SS.mmm`, UTC); the offset to add
 * to our clock, measured against the middle of the request, or undefined when there is none.
 */
export function clockOffset(answer: string, sentAt: number, answeredAt: number): number | undefined {
  const match = /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?)/.exec(answer);
  if (!match?.[1]) return undefined;
  const server = Date.parse(`${match[1]}Z`);
  if (Number.isNaN(server)) return undefined;
  return Math.round(server - (sentAt + answeredAt) / 2);
}
