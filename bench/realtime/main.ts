// `pnpm bench realtime [--model=speech|test] [--backend=in-process|redis] [--max-sessions=N]
// [--workers=W] [--threads=T]`
// N concurrent /v1/realtime sessions, each streaming JFK (11 s, then 1.5 s of silence) in real
// time as 20 ms `audio/pcm` appends (sessions started evenly over the clip's 11 s), server VAD
// on defaults (500 ms silence), real Silero VAD, on the realistic-length synthetic tiny model
// (about 2.5 tokens per second of audio; `--model=test` for the old one that says " test").
// Per utterance: speech end -> `completed` (the 500 ms of silence that ends a turn included) and
// speech start -> first `delta`, p50/p95. Next to it, in the same run and with the same N, the
// rolling-window transport: one 3 s window (`POST /transcribe?window=1&final=0`) every 3 s per
// stream; its text latency is the measured request time plus the wait for the window that
// carries the word (a word is final once it is out of the window's last, unfinished second).
// Both transports at 1, 4, 8 and 16 sessions, then doubling while one keeps up and bisecting (to
// within an eighth), in-process and on Redis with two worker processes (W decode slots in all),
// with the 1-minute load average before and after each level. Realtime keeps up while p95 speech
// end -> completed stays under 3 s, rolling windows while p95 request time stays under their 3 s
// period; any error fails a level. Figures only, never a failure.
import { availableParallelism } from 'node:os';
import { sileroVad } from '@live-captions/speech/embedded';
import { sileroModel } from '@live-captions/test-services/fixtures';
import {
  BACKENDS,
  type BackendKind,
  describeBackend,
  MODELS,
  modelArg,
  startBackend,
  startGateway,
} from '../lib/backends.js';
import { searchLevels } from '../lib/levels.js';
import { load1, machineLine } from '../lib/machine.js';
import { percentile, table } from '../lib/stats.js';
import { runLevel, type Transport } from './sessions.js';

const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
};
const MODEL = modelArg();
const MAX_SESSIONS = arg('max-sessions', 32);
const SIZE = {
  slots: arg('workers', Math.max(1, Math.min(4, availableParallelism()))),
  threads: arg('threads', 1),
};
const TARGET_S = 3;
const TRANSPORTS: readonly Transport[] = ['realtime', 'rolling'];

async function main() {
  console.log(
    `${machineLine()}\nmodel: ${MODELS[MODEL]}; ${BACKENDS.map((kind) => describeBackend(kind, SIZE)).join('; ')}; ` +
      'JFK (11 s, 4 utterances) per session in real time\n',
  );
  const rows: (string | number)[][] = [];
  const most: (string | number)[][] = [];
  const s = (ms: number[], p: number) => (ms.length ? (percentile(ms, p) / 1000).toFixed(2) : '-');
  for (const kind of BACKENDS) {
    const backend = await startBackend(kind, MODEL, SIZE);
    const gateway = await startGateway(backend, sileroVad(Promise.resolve(sileroModel())));
    try {
      const best = await searchLevels(
        TRANSPORTS,
        async (sessions, transport) => {
          const before = load1();
          const level = await runLevel(gateway.port, sessions, transport);
          // Keeping up: realtime turns are final within 3 s of the speech end; rolling windows
          // are answered within their 3 s period (their text waits for the window by design).
          const measure = transport === 'realtime' ? level.end : level.requests;
          const kept = level.errors === 0 && measure.length > 0 && percentile(measure, 95) < TARGET_S * 1000;
          rows.push([
            kind,
            sessions,
            transport,
            `${before} -> ${load1()}`,
            transport === 'rolling' ? s(level.requests, 95) : '-',
            s(level.firstDelta, 50),
            s(level.firstDelta, 95),
            s(level.end, 50),
            s(level.end, 95),
            level.errors,
            kept ? 'yes' : 'no',
          ]);
          // Progress on stderr: a full run takes minutes, the tables come at the end.
          console.error(`${kind} ${transport} x${sessions}: ${kept ? 'keeps up' : 'falls behind'}`);
          return kept;
        },
        MAX_SESSIONS,
      );
      most.push(
        [describeBackend(kind, SIZE), 'realtime (/v1/realtime)', best.realtime],
        [describeBackend(kind, SIZE), 'rolling windows (/transcribe)', best.rolling],
      );
    } finally {
      await gateway.close();
      await backend.close();
    }
  }
  rows.sort(
    (a, b) =>
      BACKENDS.indexOf(a[0] as BackendKind) - BACKENDS.indexOf(b[0] as BackendKind) ||
      Number(a[1]) - Number(b[1]) ||
      String(a[2]).localeCompare(String(b[2])),
  );
  console.log(
    'Seconds; first text = speech start -> first delta (realtime) / first window answer (rolling); ' +
      'load = 1-minute load average before -> after the level\n',
  );
  console.log(
    table(
      [
        'backend',
        'sessions',
        'transport',
        'load',
        'request p95',
        'first text p50',
        'first text p95',
        'end -> final p50',
        'end -> final p95',
        'errors',
        'keeps up',
      ],
      rows,
    ),
  );
  console.log('');
  console.log(table(['backend', 'transport', 'most sessions kept real time'], most));
  console.log(`\n${machineLine()} (at the end)`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
