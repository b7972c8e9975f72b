// One level of the conference bench: R rooms opened and fed at once, measured for a stretch,
// then closed; the figures of that stretch.
import type { StreamSource } from '@live-captions/protocol';
import { callApi } from '@live-captions/test-services';
import { isWorkersHealth, type WorkersHealth, WorkersWatch } from '@live-captions/web/board-logic';
import { load1 } from '../lib/machine.js';
import { percentile } from '../lib/stats.js';
import { type Clip, SILENCE_S } from './clip.js';
import { isGap, type LevelFigures, roomFigures } from './figures.js';
import { treeCpuSeconds, treeMemoryMiB } from './procs.js';
import { type BenchRoom, openRoom } from './rooms.js';
import { API_KEY, type Conference, sleep, until } from './stack.js';

/** The gateway's `/health` with the service token (undefined: it did not answer JSON). */
async function gatewayHealth(conference: Conference): Promise<unknown> {
  const res = await fetch(`${conference.gatewayUrl}/health`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  }).catch(() => undefined);
  return res?.json().catch(() => undefined);
}

async function gatewayCounters(
  conference: Conference,
): Promise<{ rejected: number; queueTimeouts: number; backlog: number }> {
  const body = ((await gatewayHealth(conference)) ?? {}) as {
    rejected?: number;
    queue_timeouts?: number;
    backlog_seconds?: number;
  };
  return {
    rejected: body.rejected ?? 0,
    queueTimeouts: body.queue_timeouts ?? 0,
    backlog: body.backlog_seconds ?? 0,
  };
}

/** What the rooms board reads of `/health` (lib/workers-watch.ts); undefined as the board's "unknown". */
async function workersHealth(conference: Conference): Promise<WorkersHealth | undefined> {
  const body = await gatewayHealth(conference);
  return isWorkersHealth(body) ? body : undefined;
}

/** The board's refresh: how often it looks at `/health` and the sources (links-board-status.ts). */
const BOARD_EVERY_S = 5;

async function sourcesNow(conference: Conference): Promise<StreamSource[]> {
  const res = await callApi(conference.sourcesPort, 'GET', '/sources', API_KEY);
  return (res.json as { sources: StreamSource[] }).sources;
}

export function measureServices(conference: Conference, what: 'cpu' | 'memory'): Record<string, number> {
  return Object.fromEntries(
    Object.entries(conference.services()).map(([name, pid]) => [
      name,
      pid ? (what === 'cpu' ? treeCpuSeconds(pid) : treeMemoryMiB(pid)) : Number.NaN,
    ]),
  );
}

let runNo = 0;

/** What a level runs for and how its rooms are fed (the bench's flags). */
export interface LevelPlan {
  /** Seconds measured after every source is live and the warm-up. */
  measureS: number;
  warmS: number;
  /** Every Nth room pulls HLS (0: none). */
  hlsEvery: number;
  /** A room keeps up while its behind-live p95 stays under this. */
  behindLimitS: number;
}

/** Seconds into the stretch of the first gap marker of any room (null: none). */
function firstGap(rooms: BenchRoom[], from: number, to: number): number | null {
  const at = rooms.flatMap((room) =>
    room.source.filter((a) => isGap(a.caption) && a.at >= from && a.at <= to).map((a) => a.at),
  );
  return at.length > 0 ? Math.round((Math.min(...at) - from) / 1000) : null;
}

/** R rooms at once for `measureS` after all are live and `warmS` more; the figures of the stretch. */
export async function runLevel(
  conference: Conference,
  rooms: number,
  clip: Clip,
  plan: LevelPlan,
): Promise<LevelFigures> {
  runNo += 1;
  const opened: BenchRoom[] = [];
  const loadBefore = load1();
  try {
    for (let i = 0; i < rooms; i++) {
      const room = await conference.createRoom(`conf${runNo}-r${i + 1}`, `Conference ${runNo} room ${i + 1}`);
      const kind = plan.hlsEvery > 0 && (i + 1) % plan.hlsEvery === 0 ? 'hls' : 'rtmp';
      opened.push(await openRoom(conference, room, clip.wav, kind));
    }
    await until(
      `${rooms} sources live`,
      async () => {
        const live = (await sourcesNow(conference)).filter((s) => s.state === 'live');
        return live.length >= rooms;
      },
      120_000,
    ).catch((error: unknown) => console.error(`  ${(error as Error).message}; measuring anyway`));
    await sleep(plan.warmS * 1000);
    const cpuBefore = measureServices(conference, 'cpu');
    const countersBefore = await gatewayCounters(conference);
    const from = Date.now();
    const behind = new Map<string, number[]>(opened.map((r) => [r.sourceId, []]));
    const notLive = new Map<string, number>();
    let last: StreamSource[] = [];
    // What the rooms board would say, looking as often as it does.
    const watch = new WorkersWatch();
    const board = { looks: 0, said: 0, firstS: null as number | null };
    for (let tick = 1; Date.now() - from < plan.measureS * 1000; tick++) {
      await sleep(1000);
      last = await sourcesNow(conference);
      for (const source of last) {
        behind.get(source.id)?.push(source.behindSeconds);
        if (source.state !== 'live') notLive.set(source.id, (notLive.get(source.id) ?? 0) + 1);
      }
      if (tick % BOARD_EVERY_S === 0) {
        board.looks += 1;
        if (watch.next(await workersHealth(conference), last).bottleneck) {
          board.said += 1;
          board.firstS ??= Math.round((Date.now() - from) / 1000);
        }
      }
    }
    const to = Date.now();
    const cpuAfter = measureServices(conference, 'cpu');
    const memory = measureServices(conference, 'memory');
    const countersAfter = await gatewayCounters(conference);
    // Captions of the stretch's last loops may still be on their way.
    await sleep(SILENCE_S * 1000 + 1000);
    const perRoom = opened.map((room) => {
      const source = last.find((s) => s.id === room.sourceId);
      const state = source ? `${source.state}${source.reason ? `: ${source.reason}` : ''}` : 'gone';
      return roomFigures(
        room,
        clip,
        from,
        to,
        behind.get(room.sourceId) ?? [],
        notLive.get(room.sourceId) ?? 0,
        state,
      );
    });
    const kept = perRoom.every(
      (r) =>
        r.notLive === 0 &&
        r.gaps.length === 0 &&
        r.originals > 0 &&
        percentile(r.behind, 95) < plan.behindLimitS,
    );
    return {
      rooms,
      load: `${loadBefore} -> ${load1()}`,
      cpu: Object.fromEntries(Object.keys(cpuAfter).map((k) => [k, cpuAfter[k]! - cpuBefore[k]!])),
      memory,
      perRoom,
      rejected: countersAfter.rejected - countersBefore.rejected,
      queueTimeouts: countersAfter.queueTimeouts - countersBefore.queueTimeouts,
      seconds: plan.measureS,
      backlog: countersAfter.backlog,
      board,
      firstGapS: firstGap(opened, from, to),
      kept,
    };
  } finally {
    for (const room of opened) {
      await callApi(conference.sourcesPort, 'DELETE', `/sources/${room.sourceId}`, API_KEY).catch(
        () => undefined,
      );
      room.close();
      await room.publisher.stop();
      await conference.deleteRoom(room.room.id).catch(() => undefined);
    }
    // The services release the removed rooms (their next poll) before the next level.
    await sleep(3000);
  }
}

/** % of one core per room for every service together; less the idle stack's % when given. */
