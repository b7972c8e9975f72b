/**
 * nginx-rtmp's `on_publish` / `on_publish_done` (loopback only, behind a path secret; never
 * logged, since the query holds the stream key): a publisher is let in when its key belongs to a
 * running RTMP push source that this replica runs or may take, refused otherwise.
 */

import type { Logger } from '@live-captions/runtime';
import { Router } from 'express';
import type { SourcesRepo } from '../adapters/sources-repo.js';
import type { Supervisor } from '../runner/supervisor.js';

export function pushRoutes(deps: {
  secret: string;
  repo: SourcesRepo;
  supervisor: Supervisor;
  log: Logger;
}): Router {
  const router = Router();
  router.get(`/internal/rtmp/${deps.secret}/publish`, async (req, res) => {
    const key = typeof req.query.name === 'string' ? req.query.name : '';
    const app = typeof req.query.app === 'string' ? req.query.app : '';
    const source =
      key && app === 'live' ? await deps.repo.byStreamKey(key).catch(() => undefined) : undefined;
    if (source?.kind !== 'rtmp-push' || !source.running) {
      deps.log.warn({ addr: req.query.addr }, 'RTMP publisher refused: unknown stream key');
      res.status(403).end();
      return;
    }
    if (!(await deps.supervisor.claim(source.id))) {
      deps.log.warn({ source: source.id }, 'RTMP publisher refused: another node runs this source');
      res.status(409).end();
      return;
    }
    deps.log.info({ source: source.id }, 'RTMP publisher accepted');
    res.status(200).end();
  });
  router.get(`/internal/rtmp/${deps.secret}/done`, (_req, res) => {
    res.status(200).end();
  });
  return router;
}
