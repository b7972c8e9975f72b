import type { Destination, DestinationState } from '@live-captions/protocol';
import { Router } from 'express';
import type { ArchiveRepo } from '../adapters/archive-repo.js';
import {
  type DestinationRow,
  type DestinationsRepo,
  DuplicateDestination,
} from '../adapters/destinations-repo.js';
import type { Supervisor } from '../delivery/supervisor.js';
import { bodyProblem, HttpError, LABELS, newDestinationSchema, zoomLang } from '../domain/api.js';
import { DestinationNotAllowed, destinationUrl, maskUrl } from '../domain/destination-url.js';
import type { RoomTokens } from '../domain/rooms.js';
import { ORIGINAL } from '../domain/tracks.js';
import { jsonBody, requireId, requireToken } from './http.js';

export interface DestinationRoutesDeps {
  repo: DestinationsRepo;
  archive: ArchiveRepo;
  supervisor: Supervisor;
  rooms: () => Map<string, RoomTokens>;
  allowedHosts: ReadonlySet<string>;
}

/**
 * A destination's state as the editor shows it: the sender's own when this replica runs it, else
 * what the database says (another replica sends, or the room's reader is starting).
 */
function stateOf(row: DestinationRow, deps: DestinationRoutesDeps): DestinationState {
  if (!deps.rooms().has(row.room)) return 'stopped';
  const room = deps.supervisor.roomState(row.room);
  const sender = deps.supervisor.sender(row.id);
  // Idle while the room's reader has not joined the relay yet: nothing can come, `starting`.
  if (sender) return sender.state === 'sending' && room !== 'joined' ? 'starting' : sender.state;
  if (row.kind === 'archive') return room === 'connecting' ? 'starting' : 'sending';
  if (row.failing) return 'failing';
  return row.behind > 0 ? 'waiting' : room === 'elsewhere' ? 'sending' : 'starting';
}

async function viewOf(row: DestinationRow, deps: DestinationRoutesDeps): Promise<Destination> {
  let sent = row.sent;
  if (row.kind === 'archive') {
    const sessions = await deps.archive.sessions(row.room);
    sent = sessions.filter((s) => s.startedAt >= row.createdAt).reduce((n, s) => n + s.captions, 0);
  }
  return {
    id: row.id,
    kind: row.kind,
    label: LABELS[row.kind],
    target: row.url === null ? null : maskUrl(row.url),
    ...(row.lang ? { lang: row.lang } : {}),
    ...(row.kind === 'archive' ? {} : { track: row.track }),
    state: stateOf(row, deps),
    behind: row.behind,
    lastError:
      row.lastError === null || row.lastErrorAt === null
        ? null
        : { at: new Date(row.lastErrorAt).toISOString(), message: row.lastError },
    sent,
    skipped: row.skipped,
  };
}

export function destinationRoutes(deps: DestinationRoutesDeps): Router {
  const router = Router();
  const writer = requireToken(deps.rooms, 'write');

  router.get('/rooms/:room/destinations', writer, async (req, res) => {
    const rows = await deps.repo.list(String(req.params.room));
    res.json({ destinations: await Promise.all(rows.map((row) => viewOf(row, deps))) });
  });

  router.post('/rooms/:room/destinations', writer, jsonBody, async (req, res) => {
    const parsed = newDestinationSchema.safeParse(req.body ?? {});
    if (!parsed.success) throw new HttpError(400, 'invalid_request', bodyProblem(parsed.error));
    const body = parsed.data;
    let url: string | null = null;
    if (body.kind !== 'archive') {
      try {
        url = destinationUrl(body.kind, body.url, deps.allowedHosts);
      } catch (error) {
        if (error instanceof DestinationNotAllowed)
          throw new HttpError(422, 'destination_not_allowed', error.message);
        throw error;
      }
    }
    const track = body.kind === 'archive' ? ORIGINAL : body.track;
    const lang = body.kind === 'zoom' ? zoomLang(body.lang, track) : null;
    let id: string;
    try {
      id = await deps.repo.add(String(req.params.room), body.kind, url, lang, track);
    } catch (error) {
      if (error instanceof DuplicateDestination)
        throw new HttpError(409, 'conflict', 'This room already has that destination');
      throw error;
    }
    res.locals.logger.info(
      { room: String(req.params.room), destination: id, kind: body.kind, track },
      'destination added',
    );
    // Not awaited: the check may be stopping another room's sender (up to a request timeout).
    void deps.supervisor.check();
    const row = await deps.repo.get(id);
    if (!row) throw new HttpError(404, 'not_found', 'Destination removed meanwhile');
    res.status(201).json({ destination: await viewOf(row, deps) });
  });

  const NO_DESTINATION = 'No such destination in this room';
  router.delete(
    '/rooms/:room/destinations/:id',
    writer,
    requireId('id', NO_DESTINATION),
    async (req, res) => {
      if (!(await deps.repo.remove(String(req.params.room), String(req.params.id))))
        throw new HttpError(404, 'not_found', NO_DESTINATION);
      res.locals.logger.info(
        { room: String(req.params.room), destination: String(req.params.id) },
        'destination removed',
      );
      // Awaited: once this answers, the removed destination's sender has stopped.
      await deps.supervisor.check();
      res.status(204).end();
    },
  );

  return router;
}
