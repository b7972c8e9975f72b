// pnpm model [<name> ...] | --list | --verify [<name|path> ...]
// Downloads official whisper.cpp ggml models into CAPTION_MODEL_DIR (default <repo>/models), with
// resume, retries and SHA-1 verification (src/download.ts). Exit codes: 0 ok, 1 failure, 2 usage.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  MODEL_CATALOG,
  ModelError,
  type ModelSpec,
  modelFile,
  resolveModel,
  SILERO_VAD,
} from '../src/catalog.js';
import { modelSettings } from '../src/config.js';
import { downloadModel, sha1File } from '../src/download.js';
import { ProgressReporter } from './progress-bar.js';

const USAGE = `Usage: pnpm model [<name> ...]          download official whisper.cpp models (default: $CAPTION_MODEL or base);
                                         \`silero\` is the Silero VAD model (CAPTION_VAD_MODEL=silero)
       pnpm model --list                 list the models with size and SHA-1 (* = downloaded)
       pnpm model --verify [<name|path> ...]
                                         check the SHA-1 of the given models, or of every model present

Environment:
  CAPTION_MODEL_DIR       where models live (default <repo>/models; relative to the repo root)
  CAPTION_MODEL_BASE_URL  a mirror laid out like https://huggingface.co/ggerganov/whisper.cpp
                          (files at <url>/resolve/main/ggml-<name>.bin)`;

class UsageError extends Error {}

const MiB = 1024 * 1024;

function humanSize(bytes: number): string {
  return bytes >= 1024 * MiB ? `${(bytes / 1024 / MiB).toFixed(1)} GiB` : `${Math.round(bytes / MiB)} MiB`;
}

function parseArgs(argv: string[]): { mode: 'download' | 'list' | 'verify' | 'help'; names: string[] } {
  let mode: 'download' | 'list' | 'verify' | 'help' = 'download';
  const names: string[] = [];
  for (const arg of argv) {
    if (arg === '--') continue;
    if (arg === '--help' || arg === '-h') mode = 'help';
    else if (arg === '--list' || arg === '-l') mode = mode === 'help' ? mode : 'list';
    else if (arg === '--verify') mode = mode === 'help' ? mode : 'verify';
    else if (arg.startsWith('-')) throw new UsageError(`Unknown option ${arg}`);
    else names.push(arg);
  }
  if (mode === 'list' && names.length > 0) throw new UsageError('--list takes no model names');
  return { mode, names };
}

function list(modelDir: string): void {
  console.log(`Models (${modelDir}; * = downloaded):`);
  for (const spec of MODEL_CATALOG) {
    const present = existsSync(modelFile(spec.name, modelDir));
    const notes = [
      spec.multilingual ? 'multilingual' : 'English-only',
      spec.quantization ? `quantized ${spec.quantization}` : '',
      spec.name.endsWith('-tdrz') ? 'speaker turns (tinydiarize)' : '',
    ]
      .filter(Boolean)
      .join(', ');
    console.log(
      `${present ? '* ' : '  '}${spec.name.padEnd(20)} ${humanSize(spec.approxBytes).padStart(8)}  ${spec.sha1}  ${notes}`,
    );
  }
  const vad = existsSync(modelFile(SILERO_VAD.name, modelDir));
  console.log(
    `${vad ? '* ' : '  '}${SILERO_VAD.alias.padEnd(20)} ${'0.8 MiB'.padStart(8)}  ${SILERO_VAD.sha1}  voice activity detection (ggml-${SILERO_VAD.name}.bin)`,
  );
}

const isSilero = (name: string) => name === SILERO_VAD.alias || name === SILERO_VAD.name;

async function verify(names: string[], modelDir: string, cwd: string): Promise<boolean> {
  const targets: { path: string; spec: ModelSpec | undefined }[] = [];
  if (names.length === 0) {
    for (const spec of MODEL_CATALOG) {
      const path = modelFile(spec.name, modelDir);
      if (existsSync(path)) targets.push({ path, spec });
    }
    if (targets.length === 0) {
      console.log(`No models in ${modelDir}`);
      return true;
    }
  } else {
    for (const name of names) {
      if (isSilero(name)) {
        const path = modelFile(SILERO_VAD.name, modelDir);
        targets.push({ path, spec: { ...SILERO_VAD, multilingual: false, quantization: undefined } });
        continue;
      }
      const model = resolveModel(name, modelDir, { cwd });
      targets.push({ path: model.path, spec: model.spec });
    }
  }
  let ok = true;
  for (const { path, spec } of targets) {
    if (!existsSync(path) || !statSync(path).isFile()) {
      console.error(`${path}: missing`);
      ok = false;
    } else if (!spec) {
      console.error(`${path}: not an official model, no published SHA-1 to check against`);
      ok = false;
    } else {
      const actual = await sha1File(path);
      if (actual === spec.sha1) {
        console.log(`${path}: OK (${spec.name}, SHA-1 ${actual})`);
      } else {
        console.error(`${path}: SHA-1 mismatch for ${spec.name}: expected ${spec.sha1}, got ${actual}`);
        ok = false;
      }
    }
  }
  return ok;
}

async function download(
  names: string[],
  modelDir: string,
  baseUrl: string | undefined,
  cwd: string,
  signal: AbortSignal,
): Promise<void> {
  const reporter = new ProgressReporter();
  for (const name of names) {
    if (isSilero(name)) {
      const path = await downloadModel(SILERO_VAD.name, {
        modelDir,
        signal,
        baseUrl: SILERO_VAD.baseUrl,
        expectedSha1: SILERO_VAD.sha1,
        onProgress: reporter.onEvent,
      });
      reporter.line(`${path} is there and verified (Silero VAD; use CAPTION_VAD_MODEL=silero)`);
      continue;
    }
    const model = resolveModel(name, modelDir, { cwd });
    if (model.source === 'file') {
      if (!existsSync(model.path))
        throw new ModelError('MODEL_MISSING', `Model file ${model.path} does not exist`);
      reporter.line(`${model.path} is a file path: nothing to download`);
      continue;
    }
    let fetched = false;
    await downloadModel(model.name, {
      modelDir,
      baseUrl,
      signal,
      onProgress: (event) => {
        if (event.type === 'start') fetched = true;
        reporter.onEvent(event);
      },
    });
    reporter.line(
      fetched
        ? `Saved ${model.path} (${model.name}, SHA-1 verified)`
        : `${model.path} is already there and verified`,
    );
  }
}

async function main(): Promise<number> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`pnpm model: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { model, modelDir, baseUrl } = modelSettings();
  // pnpm --filter runs us inside packages/whisper-models; paths on the command line are the user's
  const cwd = resolve(process.env.INIT_CWD ?? process.cwd());
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(1);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    switch (args.mode) {
      case 'help':
        console.log(USAGE);
        return 0;
      case 'list':
        list(modelDir);
        return 0;
      case 'verify':
        return (await verify(args.names, modelDir, cwd)) ? 0 : 1;
      case 'download': {
        const names = args.names.length > 0 ? args.names : [model];
        await download(names, modelDir, baseUrl, cwd, controller.signal);
        return 0;
      }
    }
  } catch (err) {
    if (err instanceof ModelError && err.code === 'MODEL_UNKNOWN') {
      console.error(`pnpm model: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    console.error(`\npnpm model: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`pnpm model: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
