/**
 * `GET /health` (200 only when a worker is ready) and `GET /relay-config` (404 unless the token
 * and the relay token file are both configured).
 */
import type { RelaySettings } from '@live-captions/protocol';
import { Router } from 'express';
import type { Admission } from '../domain/admission.js';
import { HttpError, Messages } from '../domain/errors.js';
import type { ApiGuards } from './guards.js';

export function statusRoutes(
  admission: Admission,
  guards: ApiGuards,
  relay: { apiKey: string | undefined; settings: RelaySettings | undefined },
): Router {
  const router = Router();

  router.get('/health', ...guards.api, async function health(_req, res) {
    res.json(await admission.health());
  });

  router.get('/relay-config', ...guards.api, function relayConfig(_req, res) {
    if (relay.apiKey === undefined || relay.settings === undefined)
      throw new HttpError(404, Messages.notFound);
    res.json(relay.settings);
  });

  return router;
}
