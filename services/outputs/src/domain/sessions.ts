/**
 * Archive sessions. A session is one stretch of an event's captions: a new one starts when the
 * archive destination is added to the room, or when a caption comes after more than
 * OUTPUTS_SESSION_IDLE_MS (30 min) without one. A relay restart (new epoch) does not end a
 * session: its missed captions are marked as a gap inside it.
 */
export interface OpenSession {
  id: string;
  lastAt: number;
  /** The session was closed (destination removed). */
  ended: boolean;
}

export function continuesSession(session: OpenSession | undefined, at: number, idleMs: number): boolean {
  return session !== undefined && !session.ended && at - session.lastAt <= idleMs;
}

/** `endedAt` as the API reports it: explicit end, or the last caption once idle; null while open. */
export function endedAtOf(
  session: { endedAt: number | null; lastAt: number | null },
  now: number,
  idleMs: number,
): number | null {
  if (session.endedAt !== null) return session.endedAt;
  if (session.lastAt !== null && now - session.lastAt > idleMs) return session.lastAt;
  return null;
}

/** `<room>-YYYY-MM-DD-hhmm.<ext>` (UTC), the archive file's download name. */
export function archiveFileName(room: string, startedAt: number, ext: string): string {
  const iso = new Date(startedAt).toISOString();
  return `${room}-${iso.slice(0, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}.${ext}`;
}

/** The text a gap leaves in the archive (a cue of its own, so readers see captions are missing). */
export const GAP_MARK = '[captions missing here]';
