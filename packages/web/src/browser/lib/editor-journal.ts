/**
 * What the editor keeps for its tab so that a reload or a crash of the tab loses nothing (pure).
 * Not the captions themselves (the relay holds them): where the review stood in the source room,
 * which captions were still to be reviewed, what went out (the Sent list and the exports), and the
 * captions the output room had not acknowledged yet, with their delivery identities.
 *
 * On the next load the editor reads the source room again from `floor` (the position just before
 * the oldest caption not handled yet), so the caption under review and those waiting come back
 * from the relay's history in their order; a caption the output room already holds (its id is
 * the source caption's own, see `outputIdOf`) is not reviewed twice; the unacknowledged captions
 * are sent again as they were, which the relay takes at most once. Captions are handled in
 * arrival order (first in, first out), so everything before `floor` was handled.
 */
import { type RelayCursor, type RelayPublish, relayPublishSchema } from '@live-captions/protocol';

export const JOURNAL_VERSION = 1;
/**
 * A journal older than this (the tab was left for a long time, or reused for another event) still
 * gives back the Sent list and the exports, but not the review: reading the source room again
 * from that far back would fill the queue with captions nobody is waiting for any more.
 */
export const RESUME_REVIEW_MS = 15 * 60_000;
/** Sent captions kept for the list and the exports (about 100 bytes each). */
export const KEPT_SENT = 5000;

/** A caption that went out: the output id, its text, when it went out. */
export interface SentEntry {
  id: string;
  text: string;
  at: number;
}

export interface EditorJournal {
  v: typeof JOURNAL_VERSION;
  /** `<source room>><output room>`: a journal of other rooms is not this page's. */
  rooms: string;
  savedAt: number;
  /** The source position just before the oldest caption not handled yet (or the last one read). */
  floor?: RelayCursor;
  /** Keys (`sourceKey`) of the caption under review and those waiting, in order. */
  pending: string[];
  /** The operator's unsent edit of the caption under review. */
  draft?: { key: string; text: string };
  sent: SentEntry[];
  /** Captions the output room had not acknowledged, as sent (with their delivery identities). */
  unacked: RelayPublish[];
}

/** A source caption's identity: its id and track (a transcript and its translation share an id). */
export function sourceKey(caption: { id: string | number; label?: string; ln?: string }): string {
  return `${String(caption.id)}\u0000${caption.label ?? ''}\u0000${caption.ln ?? ''}`;
}

/**
 * The output id of a reviewed source caption: its own id, so that what the output room holds says
 * which source captions went out (and a caption sent twice replaces itself on every reader).
 * Further pieces of a long caption get `<id>~2`, `<id>~3`, …
 */
export function outputIdOf(sourceId: string | number, piece = 1): string {
  return piece === 1 ? String(sourceId) : `${String(sourceId)}~${piece}`;
}

/** Where a reload resumes the source room: before the oldest pending caption, else after the last one read. */
export function floorOf(
  pending: readonly { relay?: RelayCursor }[],
  last: RelayCursor | undefined,
): RelayCursor | undefined {
  const oldest = pending.find((item) => item.relay)?.relay;
  if (oldest) return { epoch: oldest.epoch, sequence: Math.max(0, oldest.sequence - 1) };
  return last;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isCursor = (value: unknown): value is RelayCursor =>
  typeof value === 'object' &&
  value !== null &&
  isString((value as RelayCursor).epoch) &&
  Number.isSafeInteger((value as RelayCursor).sequence) &&
  (value as RelayCursor).sequence >= 0;

/**
 * The journal this tab kept for these rooms, read defensively (a bad field is dropped, not
 * trusted); the review part only when it is recent (`RESUME_REVIEW_MS`).
 */
export function parseJournal(raw: unknown, rooms: string, now: number): EditorJournal | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const value = raw as Partial<EditorJournal>;
  if (value.v !== JOURNAL_VERSION || value.rooms !== rooms || typeof value.savedAt !== 'number')
    return undefined;
  const sent = Array.isArray(value.sent)
    ? value.sent
        .filter((entry) => isString(entry?.id) && isString(entry.text) && Number.isFinite(entry.at))
        .slice(-KEPT_SENT)
    : [];
  const journal: EditorJournal = {
    v: JOURNAL_VERSION,
    rooms,
    savedAt: value.savedAt,
    pending: [],
    sent,
    unacked: [],
  };
  // Captions unacknowledged that long ago are not sent now: they would reach a live screen late.
  if (now - value.savedAt > RESUME_REVIEW_MS) return journal;
  if (Array.isArray(value.unacked))
    journal.unacked = value.unacked.filter(
      (frame) =>
        relayPublishSchema.safeParse(frame).success &&
        (frame.final !== undefined) !== (frame.interm !== undefined),
    );
  if (isCursor(value.floor)) journal.floor = value.floor;
  if (Array.isArray(value.pending)) journal.pending = value.pending.filter(isString);
  if (value.draft && isString(value.draft.key) && isString(value.draft.text)) journal.draft = value.draft;
  return journal;
}

export interface Restored {
  /** Captions back for review: the one under review and those waiting. */
  review: number;
  /** Pending captions the relay no longer held (expired from its history). */
  missing: number;
  /** Pending captions the output room already had (sent just before the reload). */
  alreadySent: number;
  /** Captions in the Sent list and the exports. */
  sent: number;
  /** Captions the output room had not acknowledged, sent again. */
  resent: number;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What the settings line says after a reload. */
export function restoredLine(restored: Restored): string {
  const parts = [
    `${plural(restored.review, 'caption')} back for review`,
    `${plural(restored.sent, 'sent caption')} in the list and the exports`,
  ];
  if (restored.resent > 0) parts.push(`${plural(restored.resent, 'unacknowledged caption')} sent again`);
  if (restored.alreadySent > 0) parts.push(`${plural(restored.alreadySent, 'caption')} had already gone out`);
  let line = `Restored after a reload: ${parts.join(', ')}.`;
  if (restored.missing > 0)
    line += ` ${plural(restored.missing, 'caption')} could not come back: the relay no longer holds ${restored.missing === 1 ? 'it' : 'them'}.`;
  return line;
}
