// pnpm model:synthetic — writes the synthetic test models (see src/synthetic-model.ts) into
// CAPTION_MODEL_DIR (default <repo>/models) from whisper.cpp's header-only ggml files committed in
// fixtures/models. A model is rewritten only when its stamp (generator version + source sha256 +
// size) no longer matches, so reruns are instant.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { forTestsModel } from '@live-captions/test-services/fixtures';
import { modelSettings } from '../src/config.js';
import {
  SYNTHETIC_MODEL_VERSION,
  type SyntheticModelInfo,
  type SyntheticVariant,
  syntheticModelFile,
  writeSyntheticModel,
} from '../src/synthetic-model.js';

type Source = 'tiny' | 'tiny.en' | 'base';
// [source, variant]: the plain " test" models, and the ones that say what a test or a benchmark
// needs (a hallucination, a loop, realistic speech of about 2.5 tokens per second)
const MODELS: Array<[Source, SyntheticVariant]> = [
  ['tiny', 'test'],
  ['tiny.en', 'test'],
  ['base', 'test'],
  ['tiny', 'hallucination'],
  ['tiny', 'loop'],
  ['tiny', 'speech'],
  ['base', 'speech'],
];

interface Stamp {
  version: number;
  source: string;
  sourceSha256: string;
  bytes: number;
}

async function readStamp(path: string): Promise<Stamp | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Stamp;
  } catch {
    return null;
  }
}

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}

async function buildOne(name: Source, variant: SyntheticVariant, modelDir: string): Promise<string> {
  const source = forTestsModel(name);
  const target = join(modelDir, syntheticModelFile(name, variant));
  const stampPath = `${target}.stamp.json`;
  let sourceBytes: Buffer;
  try {
    sourceBytes = await readFile(source);
  } catch (err) {
    throw new Error(
      `cannot read ${source} (${(err as NodeJS.ErrnoException).code ?? String(err)}); ` +
        'it is committed in fixtures/models: restore it with `git checkout -- fixtures`',
    );
  }
  const sourceSha256 = createHash('sha256').update(sourceBytes).digest('hex');
  const stamp = await readStamp(stampPath);
  const size = await sizeOf(target);
  if (
    stamp &&
    stamp.version === SYNTHETIC_MODEL_VERSION &&
    stamp.sourceSha256 === sourceSha256 &&
    stamp.bytes === size
  ) {
    return `${target}: up to date`;
  }
  const info: SyntheticModelInfo = await writeSyntheticModel({ source, destination: target, variant });
  const fresh: Stamp = { version: SYNTHETIC_MODEL_VERSION, source, sourceSha256, bytes: info.bytes };
  const tmpStamp = `${stampPath}.partial-${process.pid}`;
  await writeFile(tmpStamp, `${JSON.stringify(fresh, null, 2)}\n`);
  await rename(tmpStamp, stampPath);
  const mb = (info.bytes / 1e6).toFixed(1);
  return `${target}: wrote ${info.name} (${info.tensors} tensors, ${mb} MB, n_vocab ${info.nVocab}, says ${JSON.stringify(info.text.length > 60 ? `${info.text.slice(0, 57)}...` : info.text)})`;
}

async function main(): Promise<void> {
  const { modelDir } = modelSettings();
  await mkdir(modelDir, { recursive: true });
  for (const [name, variant] of MODELS) {
    console.log(await buildOne(name, variant, modelDir));
  }
}

main().catch((err: unknown) => {
  console.error(`model:synthetic: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
