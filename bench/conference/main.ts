// `pnpm bench conference [--rooms=10,25,50] [--seconds=S] [--warm=S] [--skip-standin] [--skip-model]
//   [--model-rooms=1,2,3 | --model-max=N] [--model=FILE] [--slots=N] [--threads=N]
//   [--relay-store=pglite|postgres] [--hls-every=N]`
// A whole conference at once: R caption rooms, each fed by a real stream (ffmpeg publishing the
// committed JFK clip, 11 s of speech then 6 s of silence, looped in real time to a private
// nginx-rtmp) through the stream sources service -> speech gateway -> relay (source room) -> the
// editor's live step (a forwarder per room) -> relay (output room) -> outputs service (an archive
// destination and one Apertium translation, en -> es, per room) -> a reader of the output room.
// Every service is a real process from source; rooms are made with the relay's `POST /rooms` and
// the sources and outputs services pick them up from `GET /rooms` by themselves.
//
// (a) The engine stand-in (bench/conference/instant-engine.ts: every window answered at once with
//     a fixed sentence, no decode): the plumbing alone, at each `--rooms` level. Per service, CPU
//     (% of one core) per room over the measured S seconds (default 60; the service's process
//     with everything it started: the sources' ffmpeg decoders, PostgreSQL's backends, APy's
//     pipelines) and resident memory per room above the idle stack; end of speech -> the loop's
//     last original caption at the output room's reader (the publisher's `-progress` clock places
//     the end of speech, as `pnpm bench ingest` does), the forwarder's hop and the translation's
//     lag behind its original.
// (b) The speech gateway on the synthetic tiny model (`ggml-synthetic-tiny-speech.bin`): the rooms
//     this machine keeps in real time. Levels as the other capacity benches choose them
//     (bench/lib/levels.ts, up to `--model-max`, default 32) or `--model-rooms`. A level keeps up
//     while every source stays live, no source room gets a gap marker (a skip to the live edge or
//     dropped audio), every output room gets captions and every room's behind-live p95 (the
//     source's `behindSeconds`, audio received and not yet captioned, sampled every second) stays
//     under 6 s. Per level: the worst and mean per-room behind p95, fairness = max per-room p95 /
//     mean per-room p95, the gateway's 429s (its /health counters) and the sources' reasons; per
//     room at the most rooms kept and at the first level that fell behind (the overload).
// Figures only, never a failure on timings.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { rms, SENSITIVITY } from '@live-captions/capture';
import type { RelayCaption, StreamSource } from '@live-captions/protocol';
import { callApi } from '@live-captions/test-services';
import { SPEECH_CLIP } from '../../services/sources/test/helpers/stack.js';
import { searchLevels } from '../lib/levels.js';
import { load1, machineLine } from '../lib/machine.js';
import { percentile, table } from '../lib/stats.js';
import { treeCpuSeconds, treeMemoryMiB } from './procs.js';
import { type Arrival, type BenchRoom, openRoom } from './rooms.js';
import {
  API_KEY,
  type Conference,
  DEFAULT_MODEL,
  type EngineKind,
  sleep,
  startConference,
  until,
} from './stack.js';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const num = (name: string, fallback: number) => Number(arg(name) ?? fallback);
const list = (name: string, fallback: number[]) =>
  arg(name)
    ?.split(',')
    .map(Number)
    .filter((n) => n > 0) ?? fallback;
const flag = (name: string) => process.argv.includes(`--${name}`);

const STANDIN_ROOMS = list('rooms', [10, 25, 50]);
const MEASURE_S = num('seconds', 60);
const WARM_S = num('warm', 10);
const MODEL_ROOMS = arg('model-rooms') ? list('model-rooms', []) : undefined;
const MODEL_MAX = num('model-max', 32);
/** A file of models/ for (b): another synthetic size, or a real model to see its capacity. */
const MODEL = arg('model') ?? DEFAULT_MODEL;
/** Every Nth room's source pulls the HLS nginx cuts of its stream instead of RTMP (0: none). */
const HLS_EVERY = num('hls-every', 5);
const RELAY_STORE = arg('relay-store') === 'postgres' ? 'postgres' : 'pglite';
const CORES = availableParallelism();
const SLOTS = num('slots', CORES);
const THREADS = num('threads', 1);
const SILENCE_S = 6;
const BEHIND_LIMIT_S = 6;
const SAMPLE_RATE = 16_000;
const FRAME = 800;

/** The clip with its silence (what the publishers loop), and where its speech ends. */
function prepareClip(dir: string): { wav: string; speechEnd: number; period: number } {
  const wav = join(dir, 'speech-then-silence.wav');
  const ff = ['-hide_banner', '-loglevel', 'error'];
  execFileSync('ffmpeg', [
    ...ff,
    '-i',
    SPEECH_CLIP,
    '-af',
    `apad=pad_dur=${SILENCE_S}`,
    '-ac',
    '1',
    '-ar',
    String(SAMPLE_RATE),
    '-y',
    wav,
  ]);
  const raw = execFileSync('ffmpeg', [...ff, '-i', wav, '-f', 'f32le', 'pipe:1'], {
    maxBuffer: 64 * 2 ** 20,
  });
  const samples = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  let last = 0;
  for (let i = 0; i + FRAME <= samples.length; i += FRAME)
    if (rms(samples.subarray(i, i + FRAME)) >= SENSITIVITY.normal) last = i + FRAME;
  return { wav, speechEnd: last / SAMPLE_RATE, period: samples.length / SAMPLE_RATE };
}
type Clip = ReturnType<typeof prepareClip>;

const isOriginal = (c: RelayCaption) => 'final' in c && c.final !== undefined && c.label === undefined;
const isGap = (c: RelayCaption) => 'final' in c && c.label === 'gap';
const isSpanish = (c: RelayCaption) => 'final' in c && c.label === 'translation' && c.ln === 'es';
const s2 = (ms: number[], p: number) => (ms.length ? (percentile(ms, p) / 1000).toFixed(2) : '-');
const ms = (values: number[], p: number) => (values.length ? percentile(values, p).toFixed(0) : '-');
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

interface RoomFigures {
  id: string;
  kind: 'rtmp' | 'hls';
  behind: number[];
  notLive: number;
  /** The source's last state and reason. */
  state: string;
  gaps: string[];
  originals: number;
  /** End of speech -> the loop's last original at the output reader, ms. */
  latencies: number[];
  missed: number;
  /** Source room -> output room (the forwarder's hop through the relay), ms. */
  hops: number[];
  /** Original -> its first Spanish translation at the reader, ms. */
  translations: number[];
}

interface LevelFigures {
  rooms: number;
  load: string;
  /** CPU seconds per service over the measured stretch, and memory (PSS, MiB) at its end. */
  cpu: Record<string, number>;
  memory: Record<string, number>;
  perRoom: RoomFigures[];
  rejected: number;
  queueTimeouts: number;
  /** The gateway's /health `backlog_seconds` at the end of the stretch (its largest stream backlog). */
  backlog: number;
  kept: boolean;
}

async function gatewayCounters(
  conference: Conference,
): Promise<{ rejected: number; queueTimeouts: number; backlog: number }> {
  const res = await fetch(`${conference.gatewayUrl}/health`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  const body = (await res.json()) as { rejected?: number; queue_timeouts?: number; backlog_seconds?: number };
  return {
    rejected: body.rejected ?? 0,
    queueTimeouts: body.queue_timeouts ?? 0,
    backlog: body.backlog_seconds ?? 0,
  };
}

async function sourcesNow(conference: Conference): Promise<StreamSource[]> {
  const res = await callApi(conference.sourcesPort, 'GET', '/sources', API_KEY);
  return (res.json as { sources: StreamSource[] }).sources;
}

function measureServices(conference: Conference, what: 'cpu' | 'memory'): Record<string, number> {
  return Object.fromEntries(
    Object.entries(conference.services()).map(([name, pid]) => [
      name,
      pid ? (what === 'cpu' ? treeCpuSeconds(pid) : treeMemoryMiB(pid)) : Number.NaN,
    ]),
  );
}

function roomFigures(
  room: BenchRoom,
  clip: Clip,
  from: number,
  to: number,
  behind: number[],
  notLive: number,
  state: string,
): RoomFigures {
  const during = (a: Arrival) => a.at >= from && a.at <= to;
  const originals = room.output.filter((a) => isOriginal(a.caption) && during(a));
  // Per loop of the clip whose end of speech fell in the stretch: its last original caption.
  const latencies: number[] = [];
  let missed = 0;
  const origin = room.publisher.origin();
  const loopMs = clip.period * 1000;
  if (origin !== undefined) {
    for (let k = 0; ; k++) {
      const end = origin + k * loopMs + clip.speechEnd * 1000;
      if (end < from) continue;
      if (end + SILENCE_S * 1000 > to) break;
      const mine = room.output.filter(
        (a) => isOriginal(a.caption) && a.at > end && a.at <= end + SILENCE_S * 1000 + 1000,
      );
      if (mine.length === 0) missed += 1;
      else latencies.push(Math.max(...mine.map((a) => a.at)) - end);
    }
  }
  const firstAt = (arrivals: Arrival[], keep: (c: RelayCaption) => boolean) => {
    const at = new Map<string, number>();
    for (const a of arrivals)
      if (keep(a.caption) && !at.has(String(a.caption.id))) at.set(String(a.caption.id), a.at);
    return at;
  };
  const sourceAt = firstAt(room.source, isOriginal);
  const spanishAt = firstAt(room.output, isSpanish);
  const hops: number[] = [];
  const translations: number[] = [];
  for (const a of originals) {
    const id = String(a.caption.id);
    const s = sourceAt.get(id);
    if (s !== undefined && a.at - s >= 0) hops.push(a.at - s);
    const t = spanishAt.get(id);
    if (t !== undefined) translations.push(t - a.at);
  }
  return {
    id: room.room.id,
    kind: room.kind,
    behind,
    notLive,
    state,
    gaps: room.source.filter((a) => isGap(a.caption) && during(a)).map((a) => String(a.caption.final)),
    originals: originals.length,
    latencies,
    missed,
    hops,
    translations,
  };
}

let runNo = 0;

/** R rooms at once for MEASURE_S after all are live and WARM_S more; the figures of the stretch. */
async function runLevel(conference: Conference, rooms: number, clip: Clip): Promise<LevelFigures> {
  runNo += 1;
  const opened: BenchRoom[] = [];
  const loadBefore = load1();
  try {
    for (let i = 0; i < rooms; i++) {
      const room = await conference.createRoom(`conf${runNo}-r${i + 1}`, `Conference ${runNo} room ${i + 1}`);
      const kind = HLS_EVERY > 0 && (i + 1) % HLS_EVERY === 0 ? 'hls' : 'rtmp';
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
    await sleep(WARM_S * 1000);
    const cpuBefore = measureServices(conference, 'cpu');
    const countersBefore = await gatewayCounters(conference);
    const from = Date.now();
    const behind = new Map<string, number[]>(opened.map((r) => [r.sourceId, []]));
    const notLive = new Map<string, number>();
    let last: StreamSource[] = [];
    while (Date.now() - from < MEASURE_S * 1000) {
      await sleep(1000);
      last = await sourcesNow(conference);
      for (const source of last) {
        behind.get(source.id)?.push(source.behindSeconds);
        if (source.state !== 'live') notLive.set(source.id, (notLive.get(source.id) ?? 0) + 1);
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
        percentile(r.behind, 95) < BEHIND_LIMIT_S,
    );
    return {
      rooms,
      load: `${loadBefore} -> ${load1()}`,
      cpu: Object.fromEntries(Object.keys(cpuAfter).map((k) => [k, cpuAfter[k]! - cpuBefore[k]!])),
      memory,
      perRoom,
      rejected: countersAfter.rejected - countersBefore.rejected,
      queueTimeouts: countersAfter.queueTimeouts - countersBefore.queueTimeouts,
      backlog: countersAfter.backlog,
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

const SERVICES = ['relay', 'gateway', 'sources', 'outputs', 'postgres', 'apertium'];

/** % of one core per room for every service together; less the idle stack's % when given. */
function plumbing(l: LevelFigures, idle?: Record<string, number>): number {
  const seconds = SERVICES.reduce((sum, s) => sum + (l.cpu[s] ?? 0), 0);
  const idlePct = idle ? SERVICES.reduce((sum, s) => sum + (idle[s] ?? 0), 0) : 0;
  return ((seconds / MEASURE_S) * 100 - idlePct) / l.rooms;
}

async function withConference<T>(
  engine: EngineKind,
  maxRooms: number,
  run: (c: Conference) => Promise<T>,
): Promise<T> {
  const conference = await startConference({
    engine,
    maxRooms,
    slots: SLOTS,
    threads: THREADS,
    model: MODEL,
    relayStore: RELAY_STORE,
  });
  try {
    return await run(conference);
  } finally {
    await conference.stop();
  }
}

async function standIn(clip: Clip): Promise<void> {
  const rows = await withConference('instant', Math.max(...STANDIN_ROOMS), async (conference) => {
    // Idle: once start-up has settled (its garbage collected), before any room.
    await sleep(5000);
    const idleFrom = measureServices(conference, 'cpu');
    await sleep(10_000);
    const idleCpu = Object.fromEntries(
      Object.entries(measureServices(conference, 'cpu')).map(([k, v]) => [
        k,
        ((v - idleFrom[k]!) / 10) * 100,
      ]),
    );
    const idleMemory = measureServices(conference, 'memory');
    console.log(
      `Idle stack (no rooms), CPU % of one core: ${SERVICES.map((s) => `${s} ${idleCpu[s]!.toFixed(1)}`).join(', ')}; ` +
        `PSS MiB: ${SERVICES.map((s) => `${s} ${idleMemory[s]!.toFixed(0)}`).join(', ')}\n`,
    );
    const levels: LevelFigures[] = [];
    for (const rooms of STANDIN_ROOMS) {
      console.error(`stand-in: ${rooms} rooms...`);
      levels.push(await runLevel(conference, rooms, clip));
    }
    return { levels, idleCpu };
  });
  const { levels, idleCpu } = rows;
  console.log(
    `(a) Plumbing alone (instant engine, no decode): CPU per room per service, % of one core over ${MEASURE_S} s ` +
      '(the process and what it started: sources with its ffmpeg decoders, PostgreSQL with its backends, APy with its pipelines)\n',
  );
  console.log(
    table(
      ['rooms', 'load', ...SERVICES, 'all services', 'all, above idle'],
      levels.map((l) => {
        const pct = (s: string) => ((l.cpu[s]! / MEASURE_S / l.rooms) * 100).toFixed(2);
        return [
          l.rooms,
          l.load,
          ...SERVICES.map(pct),
          plumbing(l).toFixed(2),
          plumbing(l, idleCpu).toFixed(2),
        ];
      }),
    ),
  );
  console.log(
    '\nall services = their CPU over the stretch / rooms; above idle = the same less what the idle stack used (the ' +
      "services' timers and polls, which a bigger conference shares out)",
  );
  for (const l of levels) {
    const total = plumbing(l);
    console.log(
      `${l.rooms} rooms: ${total.toFixed(2)} % of a core per room for the whole plumbing, ${plumbing(l, idleCpu).toFixed(2)} above idle (target <= 2 %: ${total <= 2 ? 'met' : 'not met'})`,
    );
  }
  console.log(
    '\nMemory per room, MiB (PSS: shared pages split among the processes that map them): the growth from one level to ' +
      "the next over the rooms added, each service's total at the level in brackets. The first level has no per-room " +
      'figure: the services free start-up memory meanwhile, and APy loads its pair on first use. A garbage-collected heap ' +
      'moves by tens of MiB on its own: only levels far apart say much\n',
  );
  console.log(
    table(
      ['rooms', ...SERVICES, 'all services'],
      levels.map((l, i) => {
        const before = levels[i - 1];
        const per = (s: string) =>
          before ? (l.memory[s]! - before.memory[s]!) / (l.rooms - before.rooms) : Number.NaN;
        const cell = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(1));
        return [
          l.rooms,
          ...SERVICES.map((s) => `${cell(per(s))} (${l.memory[s]!.toFixed(0)})`),
          cell(SERVICES.reduce((sum, s) => sum + per(s), 0)),
        ];
      }),
    ),
  );
  console.log(
    "\nEnd of speech -> the loop's last original caption at the output room's reader, seconds (the pull-RTMP rooms' loops together; HLS rooms apart); " +
      'hop = source room -> output room (the forwarder through the relay); es = original -> its Spanish translation at the reader\n',
  );
  console.log(latencyTable(levels));
}

function latencyTable(levels: LevelFigures[]): string {
  return table(
    [
      'rooms',
      'loops',
      'p50',
      'p95',
      'max',
      'HLS rooms p50 / p95',
      'missed',
      'worst room p95',
      'hop p95 ms',
      'es p95 ms',
      'captions/min/room',
      'gaps',
    ],
    levels.map((l) => {
      // The RTMP rooms' figures; the HLS rooms' (nginx's 1 s fragments and the playlist polls in
      // them) apart.
      const all = l.perRoom.filter((r) => r.kind === 'rtmp').flatMap((r) => r.latencies);
      const hls = l.perRoom.filter((r) => r.kind === 'hls').flatMap((r) => r.latencies);
      const worst = Math.max(
        0,
        ...l.perRoom.filter((r) => r.latencies.length).map((r) => percentile(r.latencies, 95)),
      );
      return [
        l.rooms,
        all.length,
        s2(all, 50),
        s2(all, 95),
        all.length ? (Math.max(...all) / 1000).toFixed(2) : '-',
        hls.length ? `${s2(hls, 50)} / ${s2(hls, 95)}` : '-',
        l.perRoom.reduce((n, r) => n + r.missed, 0),
        (worst / 1000).toFixed(2),
        ms(
          l.perRoom.flatMap((r) => r.hops),
          95,
        ),
        ms(
          l.perRoom.flatMap((r) => r.translations),
          95,
        ),
        (mean(l.perRoom.map((r) => r.originals)) / (MEASURE_S / 60)).toFixed(1),
        l.perRoom.reduce((n, r) => n + r.gaps.length, 0),
      ];
    }),
  );
}

function fairness(l: LevelFigures): { worst: number; meanP95: number; ratio: string } {
  const p95s = l.perRoom.map((r) => (r.behind.length ? percentile(r.behind, 95) : 0));
  const worst = Math.max(...p95s);
  const meanP95 = mean(p95s);
  // Under 0.1 s behind everywhere there is nothing to be unfair about.
  return { worst, meanP95, ratio: meanP95 >= 0.1 ? (worst / meanP95).toFixed(2) : '-' };
}

function perRoomTable(l: LevelFigures): string {
  return table(
    [
      'room',
      'stream',
      'behind p95',
      'behind max',
      'e2e p95',
      'missed',
      'not live',
      'gap markers',
      'source state',
    ],
    l.perRoom.map((r) => [
      r.id,
      r.kind,
      r.behind.length ? percentile(r.behind, 95).toFixed(2) : '-',
      r.behind.length ? Math.max(...r.behind).toFixed(2) : '-',
      s2(r.latencies, 95),
      r.missed,
      r.notLive,
      r.gaps.length ? `${r.gaps.length}: ${r.gaps[0]!.slice(0, 60)}` : 0,
      r.state.slice(0, 70),
    ]),
  );
}

async function model(clip: Clip): Promise<void> {
  const levels: LevelFigures[] = [];
  const max = MODEL_ROOMS ? Math.max(...MODEL_ROOMS) : MODEL_MAX;
  let best = '0';
  await withConference('model', max, async (conference) => {
    const attempt = async (rooms: number) => {
      console.error(`model: ${rooms} rooms...`);
      const level = await runLevel(conference, rooms, clip);
      levels.push(level);
      console.error(`  ${level.kept ? 'keeps up' : 'falls behind'}`);
      return level.kept;
    };
    if (MODEL_ROOMS) {
      for (const rooms of MODEL_ROOMS) await attempt(rooms);
      const failed = levels.filter((l) => !l.kept).map((l) => l.rooms);
      const firstFail = Math.min(Number.POSITIVE_INFINITY, ...failed);
      const passed = levels.filter((l) => l.kept && l.rooms < firstFail).map((l) => l.rooms);
      best = `${failed.length ? '' : '>= '}${Math.max(0, ...passed)}`;
    } else {
      best = (await searchLevels(['rooms'] as const, (n) => attempt(n), max)).rooms;
    }
  });
  levels.sort((a, b) => a.rooms - b.rooms);
  console.log(
    `(b) Model ${MODEL}, ${SLOTS} decode slot(s) x ${THREADS} thread(s); ${MEASURE_S} s per level; ` +
      "e2e = end of speech -> the output room's reader; behind = the source's audio received and not yet captioned, sampled every second; fairness = max per-room behind p95 / mean per-room behind p95\n",
  );
  console.log(
    table(
      [
        'rooms',
        'load',
        'worst room behind p95',
        'mean room behind p95',
        'behind max',
        'fairness',
        'e2e p95 (RTMP rooms)',
        'not live',
        'gap markers',
        '429 busy/capacity',
        '429 queue deadline',
        'keeps up',
      ],
      levels.map((l) => {
        const f = fairness(l);
        return [
          l.rooms,
          l.load,
          f.worst.toFixed(2),
          f.meanP95.toFixed(2),
          Math.max(0, ...l.perRoom.flatMap((r) => r.behind)).toFixed(2),
          f.ratio,
          s2(
            l.perRoom.filter((r) => r.kind === 'rtmp').flatMap((r) => r.latencies),
            95,
          ),
          l.perRoom.reduce((n, r) => n + r.notLive, 0),
          l.perRoom.reduce((n, r) => n + r.gaps.length, 0),
          l.rejected,
          l.queueTimeouts,
          l.kept ? 'yes' : 'no',
        ];
      }),
    ),
  );
  const bestN = Number(best.replace('>= ', ''));
  console.log(
    `\nMost rooms kept in real time: ${best} on ${CORES} cores (gateway decoding, sources, relay, outputs and APy on the same cores)`,
  );
  const sustained = levels.find((l) => l.rooms === bestN);
  if (sustained) {
    console.log(
      `\nPer room at ${sustained.rooms} rooms (the most kept), fairness ${fairness(sustained).ratio}\n`,
    );
    console.log(perRoomTable(sustained));
  }
  // Every level above the most kept: how each room degrades, and whether it says so.
  for (const overload of levels.filter((l) => !l.kept && l.rooms > bestN)) {
    const behindRooms = overload.perRoom.filter(
      (r) => r.behind.length && percentile(r.behind, 95) >= BEHIND_LIMIT_S,
    );
    const fell = overload.perRoom.filter(
      (r) =>
        r.gaps.length > 0 ||
        r.notLive > 0 ||
        r.originals === 0 ||
        (r.behind.length && percentile(r.behind, 95) >= BEHIND_LIMIT_S),
    );
    const said = fell.filter((r) => r.gaps.length > 0 || r.notLive > 0);
    console.log(
      `\nOverload: ${overload.rooms} rooms, fairness ${fairness(overload).ratio}; rooms over ${BEHIND_LIMIT_S} s behind (p95): ` +
        `${behindRooms.length}/${overload.rooms}; rooms that fell behind: ${fell.length}, of which said so (gap marker or source state): ${said.length}; ` +
        `rooms with a gap marker: ${overload.perRoom.filter((r) => r.gaps.length > 0).length}/${overload.rooms}; ` +
        `gateway 429s: ${overload.rejected} busy/capacity, ${overload.queueTimeouts} queue deadline; the gateway's /health ` +
        `backlog_seconds at the end: ${overload.backlog.toFixed(1)} (a stream skips to the live edge, with a gap marker, past ` +
        'CAPTION_LAG_BOUND_SECONDS, 8 s by default)\n',
    );
    console.log(perRoomTable(overload));
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-conference-clip-'));
  const clip = prepareClip(dir);
  console.log(
    `${machineLine()}\nclip: JFK ${clip.speechEnd.toFixed(1)} s of speech + ${SILENCE_S} s of silence, looped in real time ` +
      `per room (ffmpeg -> nginx-rtmp -> sources, pull RTMP); ${WARM_S} s warm-up after every source is live, then ${MEASURE_S} s measured\n`,
  );
  try {
    if (!flag('skip-standin')) await standIn(clip);
    if (!flag('skip-model')) {
      if (!flag('skip-standin')) console.log('');
      await model(clip);
    }
    console.log(`\n${machineLine()} (at the end)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
