/**
 * Public transcripts (issue 41): a session the scheduler tagged with a calendar event is a talk
 * of a public schedule, and its transcript is public beside the talk's page. Any page or reader
 * may fetch it (`Access-Control-Allow-Origin: *`, no token, no cookie); a session not tagged is
 * private to the room's token holders and answers 404 here, exactly as an unknown id.
 */
import { type RequestHandler, Router } from 'express';
import type { ArchiveRepo, SessionRow } from '../adapters/archive-repo.js';
import { HttpError, ID } from '../domain/api.js';
import { archiveFileName, endedAtOf } from '../domain/sessions.js';
import { eventView, fileExt, iso, parseFileName, sessionFile, tracksOf } from './session-files.js';

export interface TranscriptRoutesDeps {
  archive: ArchiveRepo;
  sessionIdleMs: number;
}

const FORMATS = ['srt', 'vtt', 'txt'] as const;

/** Every answer under /transcripts, refusals included, readable from any origin. */
const anyOrigin: RequestHandler = (req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  // Also for a <track> or a no-cors fetch: helmet's default is same-origin.
  res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
  if (req.method !== 'OPTIONS') return next();
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD');
  res.setHeader('Access-Control-Max-Age', '600');
  res.status(204).end();
};

export function transcriptRoutes(deps: TranscriptRoutesDeps): Router {
  const router = Router();
  router.use('/transcripts', anyOrigin);

  async function talk(id: string): Promise<SessionRow> {
    const session = ID.test(id) ? await deps.archive.byId(id) : undefined;
    if (!session || session.event === null) throw new HttpError(404, 'not_found', 'No such transcript');
    return session;
  }

  router.get('/transcripts/:name', async (req, res) => {
    const name = String(req.params.name);
    const now = Date.now();
    if (ID.test(name)) {
      const session = await talk(name);
      const counted = (await deps.archive.tracks([session.id])).get(session.id) ?? [];
      const endedAt = endedAtOf(session, now, deps.sessionIdleMs);
      res.setHeader('Cache-Control', endedAt === null ? 'no-store' : 'public, max-age=60');
      res.json({
        session: session.id,
        event: eventView(session.event),
        startedAt: iso(session.startedAt),
        endedAt: iso(endedAt),
        tracks: tracksOf(counted).map(({ track, captions }) => ({
          track,
          captions,
          ...Object.fromEntries(
            FORMATS.map((format) => [format, `transcripts/${session.id}.${fileExt(track, format)}`]),
          ),
        })),
      });
      return;
    }
    const asked = parseFileName(name);
    const session = await talk(asked.session);
    const file = await sessionFile(deps.archive, session, asked.track, asked.format);
    const download = archiveFileName(session.room, session.startedAt, fileExt(asked.track, asked.format));
    const ended = endedAtOf(session, now, deps.sessionIdleMs) !== null;
    res
      .status(200)
      .type(file.type)
      .setHeader('Content-Disposition', `inline; filename="${download}"`)
      // A finished talk's file changes no more (but a writer may delete it): a minute is enough.
      .setHeader('Cache-Control', ended ? 'public, max-age=60' : 'no-store')
      .send(file.body);
  });

  return router;
}
