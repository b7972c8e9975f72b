// `pnpm --filter @live-captions/web build` (and `pnpm build` / `pnpm start`): bundles the pages
// into dist/pages, unless none of the files they were made of changed since the last bundle, so a
// start with nothing changed does nothing here. `--force` bundles anyway.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPages, pagesDir } from './index.js';

/** Written last, after the pages: the inputs of that bundle. */
const stampFile = join(pagesDir, '.inputs.json');
/** The bundling code itself (which pages, their heads, which options) is an input too. */
const builders = ['./build.js', './pages.js'].map((module) =>
  fileURLToPath(new URL(module, import.meta.url)),
);

function upToDate(): boolean {
  try {
    const built = statSync(stampFile).mtimeMs;
    const { inputs } = JSON.parse(readFileSync(stampFile, 'utf8')) as { inputs: string[] };
    return [...builders, ...inputs].every((path) => statSync(path).mtimeMs <= built);
  } catch {
    return false; // no stamp yet, or an input is gone
  }
}

if (!process.argv.includes('--force') && upToDate()) {
  console.log(`web: pages up to date in ${pagesDir}`);
} else {
  const started = performance.now();
  const result = await buildPages();
  writeFileSync(stampFile, `${JSON.stringify({ inputs: result.inputs }, null, 2)}\n`);
  console.log(
    `web: ${result.files.length} files in ${result.outDir} (${Math.round(performance.now() - started)} ms)`,
  );
}
