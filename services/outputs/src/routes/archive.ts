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
import { requireToken } from './http.js';

export interface ArchiveRoutesDeps {
  archive: ArchiveRepo;
  rooms: () => Map<string, RoomTokens>;
  sessionIdleMs: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const FILE = /^([0-9a-f-]{36})\.(srt|vtt|txt)$/;

export function archiveRoutes(deps: ArchiveRoutesDeps): Router {
  const router = Router();
  const reader = requireToken(deps.rooms, 'read');
  const writer = requireToken(deps.rooms, 'write');

  router.get('/rooms/:room/archive', reader, async (req, res) => {
    const now = Date.now();
    const sessions = await deps.archive.sessions(String(req.params.room));
    res.json({
      sessions: sessions.map((s) => ({
        id: s.id,
        startedAt: iso(s.startedAt),
        endedAt: iso(endedAtOf(s, now, deps.sessionIdleMs)),
        captions: s.captions,
      })),
    });
  });

  router.get('/rooms/:room/archive/:file', reader, async (req, res) => {
    const match = FILE.exec(String(req.params.file));
    if (!match?.[1] || !match[2])
      throw new HttpError(404, 'not_found', 'No such session file (.srt, .vtt or .txt)');
    const format = match[2] as CaptionFileFormat;
    const session = await deps.archive.session(String(req.params.room), match[1]);
    if (!session) throw new HttpError(404, 'not_found', 'No such session');
    const captions = await deps.archive.captions(session.id);
    const file = captionFile(cuesOf(captions, { originMs: session.startedAt }), format);
    const name = archiveFileName(String(req.params.room), session.startedAt, format);
    res
      .status(200)
      .type(CAPTION_FILE_TYPES[format])
      .setHeader('Content-Disposition', `attachment; filename="${name}"`)
      .setHeader('Cache-Control', 'no-store')
      .send(file);
  });

  router.delete('/rooms/:room/archive/:session', writer, async (req, res) => {
    if (!(await deps.archive.remove(String(req.params.room), String(req.params.session))))
      throw new HttpError(404, 'not_found', 'No such session');
    res.locals.logger.info(
      { room: String(req.params.room), session: String(req.params.session) },
      'archive session deleted',
    );
    res.status(204).end();
  });

  return router;
}
