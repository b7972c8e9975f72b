/**
 * Archive sessions. A session is one stretch of an event's captions: a new one starts when the
 * archive destination is added to the room, or when a caption comes after more than
 * OUTPUTS_SESSION_IDLE_MS (30 min) without one. A relay restart (new epoch) does not end a
 * session: its missed captions are marked as a gap inside it.
 *
 * A session can also be one talk of the calendar: the scheduler says which event the room's
 * captions belong to from now on (`PUT /rooms/:room/archive/event`), which cuts the sessions at
 * the event boundaries it conducts (issue 41).
 */

/** The calendar event a session is the transcript of, as the scheduler sent it (times in ms). */
export interface SessionEvent {
  id: number;
  title: string;
  start: number;
  end: number;
}

export interface OpenSession {
  id: string;
  lastAt: number;
  /** The session was closed (destination removed). */
  ended: boolean;
  /** The end of the event it is tagged with; null when untagged. */
  eventEnd: number | null;
}

/**
 * Whether a caption at `at` belongs to the open session: within the idle time of its last
 * caption, or, for a talk, before its scheduled end plus the idle time. A talk is cut by the
 * scheduler (its next PUT), not by a pause: a quiet half hour of a long talk (a film, a break)
 * stays in it, and so do overrun captions. Only when the scheduler never comes back (every
 * replica down) does a silence past the end and the idle time start a new, untagged session, so
 * that tomorrow's captions never land in today's last talk.
 */
export function continuesSession(session: OpenSession | undefined, at: number, idleMs: number): boolean {
  if (session === undefined || session.ended) return false;
  return at - session.lastAt <= idleMs || (session.eventEnd !== null && at <= session.eventEnd + idleMs);
}

/**
 * `endedAt` as the API reports it: explicit end, or the last caption once the next caption would
 * start a new session (continuesSession); null while open.
 */
export function endedAtOf(
  session: { endedAt: number | null; lastAt: number | null; event?: SessionEvent | null },
  now: number,
  idleMs: number,
): number | null {
  if (session.endedAt !== null) return session.endedAt;
  if (session.lastAt === null) return null;
  const open = { id: '', lastAt: session.lastAt, ended: false, eventEnd: session.event?.end ?? null };
  return continuesSession(open, now, idleMs) ? null : session.lastAt;
}

/**
 * When a session the scheduler cuts ends: when the API already reports it ended (idle), that
 * time stays; else now.
 */
export function closingTime(
  session: { endedAt: number | null; lastAt: number | null; event: SessionEvent | null },
  now: number,
  idleMs: number,
): number {
  return endedAtOf(session, now, idleMs) ?? now;
}

/**
 * An untagged session that never got a row (the "between talks" session of a room nobody spoke
 * in) is deleted rather than closed when another replaces it: it would only be an empty entry
 * in the room's list. An empty talk stays: it is that talk's (empty) transcript.
 */
export const discardable = (session: { lastAt: number | null; event: SessionEvent | null }): boolean =>
  session.event === null && session.lastAt === null;

/** What `PUT /rooms/:room/archive/event` does, from what the room holds. */
export type EventStep =
  /** The open session is already that event's (a retry, another replica): it stays. */
  | { kind: 'same' }
  /** The open session is closed and a new one opened with the event (or untagged). */
  | { kind: 'cut'; addArchive: boolean }
  /**
   * The room has no archive, and the latest session is this event's: the operator removed the
   * archive during this talk, which the scheduler's retries must not undo.
   */
  | { kind: 'kept-off' }
  /** `null` for a room without archive: nothing is recorded between talks, nothing to cut. */
  | { kind: 'none' };

export function eventStep(room: {
  hasArchive: boolean;
  /** The open session's event id (null: untagged); undefined when none is open. */
  openEventId: number | null | undefined;
  /** The event id of the room's latest session, open or closed; undefined when it has none. */
  latestEventId: number | null | undefined;
  requested: number | null;
}): EventStep {
  if (room.hasArchive) {
    if (room.openEventId !== undefined && room.openEventId === room.requested) return { kind: 'same' };
    return { kind: 'cut', addArchive: false };
  }
  if (room.requested === null) return { kind: 'none' };
  if (room.latestEventId === room.requested) return { kind: 'kept-off' };
  return { kind: 'cut', addArchive: true };
}

/** `<room>-YYYY-MM-DD-hhmm.<ext>` (UTC), the archive file's download name. */
export function archiveFileName(room: string, startedAt: number, ext: string): string {
  const iso = new Date(startedAt).toISOString();
  return `${room}-${iso.slice(0, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}.${ext}`;
}

/** The text a gap leaves in the archive (a cue of its own, so readers see captions are missing). */
export const GAP_MARK = '[captions missing here]';
