/**
 * `GET /health` (200 only when a worker is ready) and `GET /relay-config` (404 unless the token is
 * configured; without `?room=`, 404 unless the relay token file is there; with `?room=<id>`, that
 * caption room from the relay's rooms API).
 */
import type { RelaySettings } from '@live-captions/protocol';
import { RoomsApiError } from '@live-captions/relay-client/node';
import { Router } from 'express';
import type { RoomSettingsLookup } from '../adapters/relay-rooms.js';
import type { Admission } from '../domain/admission.js';
import { HttpError, Messages } from '../domain/errors.js';
import { captionRoomIdProblem } from '../domain/relay-settings.js';
import type { ApiGuards } from './guards.js';

export function statusRoutes(
  admission: Admission,
  guards: ApiGuards,
  relay: { apiKey: string | undefined; settings: RelaySettings | undefined; room: RoomSettingsLookup },
): Router {
  const router = Router();

  router.get('/health', ...guards.api, async function health(_req, res) {
    res.json(await admission.health());
  });

  router.get('/relay-config', ...guards.api, async function relayConfig(req, res) {
    if (relay.apiKey === undefined) throw new HttpError(404, Messages.notFound);
    const room = req.query.room;
    if (room === undefined) {
      if (relay.settings === undefined) throw new HttpError(404, Messages.notFound);
      return void res.json(relay.settings);
    }
    const problem = typeof room === 'string' ? captionRoomIdProblem(room) : 'room: must be given once';
    if (problem) throw new HttpError(400, problem, { param: 'room' });
    let settings: RelaySettings | undefined;
    try {
      settings = await relay.room(room as string);
    } catch (error) {
      if (!(error instanceof RoomsApiError)) throw error;
      throw new HttpError(503, `The relay's rooms are unavailable: ${error.message}`, {
        reason: error.problem,
      });
    }
    if (settings === undefined) throw new HttpError(404, `No caption room "${room}" on the relay`);
    res.setHeader('Cache-Control', 'no-store');
    res.json(settings);
  });

  return router;
}
