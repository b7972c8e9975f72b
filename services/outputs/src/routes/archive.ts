import {
  CAPTION_FILE_TYPES,
  type CaptionFileFormat,
  captionFile,
  cuesOf,
} from '@live-captions/caption-files';
import { Router } from 'express';
import type { ArchiveRepo } from '../adapters/archive-repo.js';
import { HttpError } from '../domain/api.js';
import type { RoomTokens } from '../domain/rooms.js';
import { archiveFileName, endedAtOf } from '../domain/sessions.js';
import { compareTracks, ORIGINAL, parseTrack } from '../domain/tracks.js';
import { requireId, requireToken } from './http.js';

export interface ArchiveRoutesDeps {
  archive: ArchiveRepo;
  rooms: () => Map<string, RoomTokens>;
  sessionIdleMs: number;
  /** CAPTION_API_KEY: reads and deletes any room's archive, a removed room's included. */
  apiKey?: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A session's tracks as the API lists them: the original always, first. */
function tracksOf(counted: { track: string; captions: number }[]): { track: string; captions: number }[] {
  const list = counted.some((t) => t.track === ORIGINAL)
    ? [...counted]
    : [{ track: ORIGINAL, captions: 0 }, ...counted];
  return list.sort((a, b) => compareTracks(a.track, b.track));
}
/** `<session>.<ext>` (the original track) or `<session>.<track>.<ext>`. */
const FILE = /^([0-9a-f-]{36})(?:\.([A-Za-z0-9-]{2,64}))?\.(srt|vtt|txt)$/;

export function archiveRoutes(deps: ArchiveRoutesDeps): Router {
  const router = Router();
  const reader = requireToken(deps.rooms, 'read', deps.apiKey);
  const writer = requireToken(deps.rooms, 'write', deps.apiKey);

  router.get('/rooms/:room/archive', reader, async (req, res) => {
    const now = Date.now();
    const sessions = await deps.archive.sessions(String(req.params.room));
    const tracks = await deps.archive.tracks(sessions.map((s) => s.id));
    res.json({
      sessions: sessions.map((s) => ({
        id: s.id,
        startedAt: iso(s.startedAt),
        endedAt: iso(endedAtOf(s, now, deps.sessionIdleMs)),
        captions: s.captions,
        tracks: tracksOf(tracks.get(s.id) ?? []),
      })),
    });
  });

  router.get('/rooms/:room/archive/:file', reader, async (req, res) => {
    const match = FILE.exec(String(req.params.file));
    const track = match?.[2] === undefined ? ORIGINAL : parseTrack(match[2]);
    if (!match?.[1] || !match[3] || track === undefined)
      throw new HttpError(404, 'not_found', 'No such session file (.srt, .vtt or .txt, or .<track>.srt...)');
    const format = match[3] as CaptionFileFormat;
    const session = await deps.archive.session(String(req.params.room), match[1]);
    if (!session) throw new HttpError(404, 'not_found', 'No such session');
    const captions = await deps.archive.captions(session.id, track);
    // The original track is there even when empty; a language only once it has captions.
    if (track !== ORIGINAL && captions.length === 0)
      throw new HttpError(404, 'not_found', 'No such track in this session');
    const file = captionFile(cuesOf(captions, { originMs: session.startedAt }), format);
    const ext = track === ORIGINAL ? format : `${track}.${format}`;
    const name = archiveFileName(String(req.params.room), session.startedAt, ext);
    res
      .status(200)
      .type(CAPTION_FILE_TYPES[format])
      .setHeader('Content-Disposition', `attachment; filename="${name}"`)
      .setHeader('Cache-Control', 'no-store')
      .send(file);
  });

  router.delete(
    '/rooms/:room/archive/:session',
    writer,
    requireId('session', 'No such session'),
    async (req, res) => {
      if (!(await deps.archive.remove(String(req.params.room), String(req.params.session))))
        throw new HttpError(404, 'not_found', 'No such session');
      res.locals.logger.info(
        { room: String(req.params.room), session: String(req.params.session) },
        'archive session deleted',
      );
      res.status(204).end();
    },
  );

  return router;
}
