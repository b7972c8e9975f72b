/**
 * A session's caption files as both the room's archive routes and the public transcripts serve
 * them: the same names, tracks and rendering (`@live-captions/caption-files`).
 */
import {
  CAPTION_FILE_TYPES,
  type CaptionFileFormat,
  captionFile,
  cuesOf,
} from '@live-captions/caption-files';
import type { ArchiveRepo, SessionRow } from '../adapters/archive-repo.js';
import { HttpError } from '../domain/api.js';
import type { SessionEvent } from '../domain/sessions.js';
import { compareTracks, ORIGINAL, parseTrack } from '../domain/tracks.js';

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A session's event as the API answers it: times in UTC ISO 8601. */
export const eventView = (event: SessionEvent | null) =>
  event === null
    ? null
    : { id: event.id, title: event.title, start: iso(event.start)!, end: iso(event.end)! };

/** A session's tracks as the API lists them: the original always, first. */
export function tracksOf(
  counted: { track: string; captions: number }[],
): { track: string; captions: number }[] {
  const list = counted.some((t) => t.track === ORIGINAL)
    ? [...counted]
    : [{ track: ORIGINAL, captions: 0 }, ...counted];
  return list.sort((a, b) => compareTracks(a.track, b.track));
}

/** `<session>.<ext>` (the original track) or `<session>.<track>.<ext>`. */
const FILE = /^([0-9a-f-]{36})(?:\.([A-Za-z0-9-]{2,64}))?\.(srt|vtt|txt)$/;

export interface SessionFileName {
  session: string;
  track: string;
  format: CaptionFileFormat;
}

/** The session, track and format a file name asks for; 404 for a name no file can have. */
export function parseFileName(name: string): SessionFileName {
  const match = FILE.exec(name);
  const track = match?.[2] === undefined ? ORIGINAL : parseTrack(match[2]);
  if (!match?.[1] || !match[3] || track === undefined)
    throw new HttpError(404, 'not_found', 'No such session file (.srt, .vtt or .txt, or .<track>.srt...)');
  return { session: match[1], track, format: match[3] as CaptionFileFormat };
}

/** The file name's part after the session id: `srt` for the original, `de.vtt` for a track. */
export const fileExt = (track: string, format: CaptionFileFormat) =>
  track === ORIGINAL ? format : `${track}.${format}`;

/** A track of a session as a file, with its content type; 404 for a track it does not hold. */
export async function sessionFile(
  archive: ArchiveRepo,
  session: SessionRow,
  track: string,
  format: CaptionFileFormat,
): Promise<{ body: string; type: string }> {
  const captions = await archive.captions(session.id, track);
  // The original track is there even when empty; a language only once it has captions.
  if (track !== ORIGINAL && captions.length === 0)
    throw new HttpError(404, 'not_found', 'No such track in this session');
  const body = captionFile(cuesOf(captions, { originMs: session.startedAt }), format);
  return { body, type: CAPTION_FILE_TYPES[format] };
}
