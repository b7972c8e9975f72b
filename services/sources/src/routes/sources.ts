import { randomBytes } from 'node:crypto';
import { Router } from 'express';
import { checkedAddress } from '../adapters/egress-proxy.js';
import { PortsExhausted, type SourceRow, type SourcesRepo } from '../adapters/sources-repo.js';
import type { AllowList } from '../domain/addresses.js';
import {
  bodyProblem,
  newSourceSchema,
  roomSchema,
  SOURCE_ID,
  type SourceView,
  STATUS_STALE_MS,
  settingsUpdateSchema,
} from '../domain/source.js';
import {
  hostOf,
  maskSecret,
  maskUrl,
  newStreamKey,
  parsePullUrl,
  SourceRefused,
} from '../domain/source-input.js';
import type { Supervisor } from '../runner/supervisor.js';
import { HttpError } from './http.js';

export interface SourceRoutesDeps {
  repo: SourcesRepo;
  supervisor: Supervisor;
  /** Rooms of the relay's configuration (a source room needs its write token there). */
  hasRoom: (room: string) => boolean;
  allowedHosts: AllowList;
  maxPerNode: number;
  nodes: () => Promise<number>;
  srtPorts: readonly [number, number];
  /** How encoders reach the push listeners. */
  push: { host: string; rtmpPort: number };
}

/** The push URL an encoder sends to, with the key whole (`reveal`) or masked. */
function pushUrl(row: SourceRow, deps: SourceRoutesDeps, reveal: boolean): string {
  const key = reveal ? (row.streamKey ?? '') : maskSecret(row.streamKey ?? '');
  if (row.kind === 'rtmp-push') return `rtmp://${deps.push.host}:${deps.push.rtmpPort}/live/${key}`;
  return `srt://${deps.push.host}:${row.srtPort}?passphrase=${key}&pbkeylen=32`;
}

export function viewOf(row: SourceRow, deps: SourceRoutesDeps): SourceView {
  const fresh = row.status !== null && row.statusAt !== null && Date.now() - row.statusAt < STATUS_STALE_MS;
  // This replica's own runner answers for itself: its report reaches the database only every
  // 2 s, and a source just started (a single node) would show "waiting for a node" meanwhile.
  const local = deps.supervisor.runner(row.id)?.status();
  const status = row.running ? (local ?? (fresh ? row.status : null)) : null;
  return {
    id: row.id,
    room: row.room,
    name: row.name,
    input: {
      kind: row.kind,
      url: row.kind === 'pull' ? maskUrl(parsePullUrl(row.url ?? '')) : pushUrl(row, deps, false),
    },
    settings: row.settings,
    running: row.running,
    state: !row.running ? 'stopped' : (status?.state ?? 'connecting'),
    reason: !row.running ? null : status ? status.reason : 'waiting for a node to run it',
    level: status?.level ?? 0,
    behindSeconds: status?.behindSeconds ?? 0,
    captionsSent: row.captionsSent,
    since: status?.since ?? null,
    node: status?.node ?? null,
    ...(row.running && status?.roomWriters ? { roomWriters: status.roomWriters } : {}),
  };
}

export function sourceRoutes(deps: SourceRoutesDeps): Router {
  const router = Router();

  const found = async (id: string): Promise<SourceRow> => {
    // Not asked of the database: an id that is no UUID (a NUL, say) names no source.
    const row = SOURCE_ID.test(id) ? await deps.repo.get(id) : undefined;
    if (!row) throw new HttpError(404, 'not_found', 'No such source');
    return row;
  };

  /** 409 when every node already runs its maximum of sources. */
  const roomToRun = async () => {
    const nodes = await deps.nodes();
    const limit = deps.maxPerNode * nodes;
    if ((await deps.repo.countRunning()) >= limit)
      throw new HttpError(
        409,
        'capacity',
        `Every node runs its maximum of sources (${deps.maxPerNode} per node, SOURCES_MAX_PER_NODE; ${nodes} node${nodes === 1 ? '' : 's'}): stop or remove one first`,
      );
  };

  router.get('/sources', async (req, res) => {
    const room = typeof req.query.room === 'string' ? req.query.room : undefined;
    const checked = room === undefined ? undefined : roomSchema.safeParse(room);
    if (checked && !checked.success)
      throw new HttpError(400, 'invalid_request', `room: ${checked.error.issues[0]?.message}`);
    res.json({ sources: (await deps.repo.list(room)).map((row) => viewOf(row, deps)) });
  });

  router.get('/sources/:id', async (req, res) => {
    res.json({ source: viewOf(await found(String(req.params.id)), deps) });
  });

  router.post('/sources', async (req, res) => {
    const parsed = newSourceSchema.safeParse(req.body ?? {});
    if (!parsed.success) throw new HttpError(400, 'invalid_request', bodyProblem(parsed.error));
    const body = parsed.data;
    if (!deps.hasRoom(body.room))
      throw new HttpError(422, 'unknown_room', 'The relay configuration has no such room');
    let url: string | null = null;
    let streamKey: string | null = null;
    if (body.input.kind === 'pull') {
      try {
        const pull = parsePullUrl(body.input.url);
        await checkedAddress(hostOf(pull.url), deps.allowedHosts).catch((error: Error) => {
          throw new SourceRefused(`url: ${error.message}`);
        });
        url = pull.url.href;
      } catch (error) {
        if (error instanceof SourceRefused) throw new HttpError(422, 'source_refused', error.message);
        throw error;
      }
    } else streamKey = body.input.streamKey ?? newStreamKey((n) => randomBytes(n));
    if (body.running) await roomToRun();
    let id: string;
    try {
      id = await deps.repo.add(
        {
          room: body.room,
          name: body.name,
          kind: body.input.kind,
          url,
          streamKey,
          settings: body.settings,
          running: body.running,
        },
        deps.srtPorts,
      );
    } catch (error) {
      if (error instanceof PortsExhausted)
        throw new HttpError(409, 'capacity', 'Every SRT port of SOURCES_SRT_PORTS is taken by a source');
      if ((error as { code?: string }).code === '23505')
        throw new HttpError(409, 'conflict', 'Another source has that stream key');
      throw error;
    }
    res.locals.logger.info({ source: id, room: body.room, kind: body.input.kind }, 'source added');
    // Awaited, as for a start: the answer shows the source run here when this replica takes it.
    await deps.supervisor.check();
    const row = await found(id);
    // The only answer that shows a push source's key whole: the encoder needs it once.
    res.status(201).json({
      source: viewOf(row, deps),
      ...(row.kind === 'pull' ? {} : { push: { url: pushUrl(row, deps, true), streamKey: row.streamKey } }),
    });
  });

  router.patch('/sources/:id', async (req, res) => {
    const row = await found(String(req.params.id));
    const parsed = settingsUpdateSchema.safeParse(req.body?.settings ?? {});
    if (!parsed.success) throw new HttpError(400, 'invalid_request', bodyProblem(parsed.error, 'settings'));
    await deps.repo.setSettings(row.id, { ...row.settings, ...parsed.data });
    await deps.supervisor.check();
    res.json({ source: viewOf(await found(row.id), deps) });
  });

  for (const action of ['start', 'stop'] as const) {
    router.post(`/sources/:id/${action}`, async (req, res) => {
      const row = await found(String(req.params.id));
      if (action === 'start' && !row.running) await roomToRun();
      await deps.repo.setRunning(row.id, action === 'start');
      res.locals.logger.info({ source: row.id }, action === 'start' ? 'source started' : 'source stopped');
      // Awaited: once a stop answers, this replica's ffmpeg for it has ended.
      await deps.supervisor.check();
      res.json({ source: viewOf(await found(row.id), deps) });
    });
  }

  router.delete('/sources/:id', async (req, res) => {
    const id = String(req.params.id);
    if (!SOURCE_ID.test(id) || !(await deps.repo.remove(id)))
      throw new HttpError(404, 'not_found', 'No such source');
    res.locals.logger.info({ source: id }, 'source removed');
    await deps.supervisor.check();
    res.status(204).end();
  });

  return router;
}
