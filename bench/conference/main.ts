import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { searchLevels } from '../lib/levels.js';
import { machineLine } from '../lib/machine.js';
import { percentile, table } from '../lib/stats.js';
import { type Clip, prepareClip, SILENCE_S } from './clip.js';
import { type LevelFigures, s2 } from './figures.js';
import { measureServices, runLevel } from './level.js';
import { fairness, latencyTable, perRoomTable, plumbing, SERVICES } from './report.js';
import { type Conference, DEFAULT_MODEL, type EngineKind, sleep, startConference } from './stack.js';

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

const BEHIND_LIMIT_S = 6;
const PLAN = { measureS: MEASURE_S, warmS: WARM_S, hlsEvery: HLS_EVERY, behindLimitS: BEHIND_LIMIT_S };

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
      levels.push(await runLevel(conference, rooms, clip, PLAN));
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

async function model(clip: Clip): Promise<void> {
  const levels: LevelFigures[] = [];
  const max = MODEL_ROOMS ? Math.max(...MODEL_ROOMS) : MODEL_MAX;
  let best = '0';
  await withConference('model', max, async (conference) => {
    const attempt = async (rooms: number) => {
      console.error(`model: ${rooms} rooms...`);
      const level = await runLevel(conference, rooms, clip, PLAN);
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
        'board: bottleneck (looks, first s)',
        'first gap s',
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
          `${l.board.said}/${l.board.looks}${l.board.firstS === null ? '' : `, ${l.board.firstS}`}`,
          l.firstGapS ?? '-',
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
        'CAPTION_LAG_BOUND_SECONDS, 8 s by default); the rooms board said the speech workers are the bottleneck on ' +
        `${overload.board.said} of its ${overload.board.looks} looks (first after ${overload.board.firstS ?? '-'} s; ` +
        `first gap marker after ${overload.firstGapS ?? '-'} s)\n`,
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
