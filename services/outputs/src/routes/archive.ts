import { Router } from 'express';
import type { ArchiveRepo } from '../adapters/archive-repo.js';
import { archiveEventSchema, bodyProblem, HttpError } from '../domain/api.js';
import type { RoomTokens } from '../domain/rooms.js';
import { archiveFileName, endedAtOf } from '../domain/sessions.js';
import { jsonBody, requireId, requireRoomName, requireToken } from './http.js';
import { eventView, fileExt, iso, parseFileName, sessionFile, tracksOf } from './session-files.js';

export interface ArchiveRoutesDeps {
  archive: ArchiveRepo;
  rooms: () => Map<string, RoomTokens>;
  sessionIdleMs: number;
  /** CAPTION_API_KEY: reads and deletes any room's archive, a removed room's included. */
  apiKey?: string;
  /** Called once an event PUT added the room's archive destination: its reader starts. */
  archiveAdded: () => void;
}

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
        event: eventView(s.event),
      })),
    });
  });

  /**
   * The scheduler (issue 41): from now on the room's captions belong to this calendar event, or
   * to none (`null`, between talks). Idempotent: the same event again changes nothing.
   */
  router.put('/rooms/:room/archive/event', writer, requireRoomName, jsonBody, async (req, res) => {
    const parsed = archiveEventSchema.safeParse(req.body ?? {});
    if (!parsed.success)
      throw new HttpError(400, 'invalid_request', bodyProblem(parsed.error, 'body: must be {"event": ...}'));
    const room = String(req.params.room);
    const { event } = parsed.data;
    const { step, session } = await deps.archive.setEvent(room, event, Date.now(), deps.sessionIdleMs);
    if (step.kind === 'cut') {
      if (step.addArchive) deps.archiveAdded();
      res.locals.logger.info(
        { room, session: session?.id, event: event?.id ?? null, archiveAdded: step.addArchive },
        'archive session for event',
      );
    } else if (step.kind === 'kept-off') {
      res.locals.logger.info(
        { room, event: event?.id },
        'archive removed during this event: not added again',
      );
    }
    res.json({
      session:
        session === null
          ? null
          : {
              id: session.id,
              event: eventView(session.event),
              startedAt: iso(session.startedAt),
              endedAt: iso(endedAtOf(session, Date.now(), deps.sessionIdleMs)),
            },
    });
  });

  router.get('/rooms/:room/archive/:file', reader, async (req, res) => {
    const room = String(req.params.room);
    const { session: id, track, format } = parseFileName(String(req.params.file));
    const session = await deps.archive.session(room, id);
    if (!session) throw new HttpError(404, 'not_found', 'No such session');
    const file = await sessionFile(deps.archive, session, track, format);
    const name = archiveFileName(room, session.startedAt, fileExt(track, format));
    res
      .status(200)
      .type(file.type)
      .setHeader('Content-Disposition', `attachment; filename="${name}"`)
      .setHeader('Cache-Control', 'no-store')
      .send(file.body);
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
