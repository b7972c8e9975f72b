/**
 * The pages' build: esbuild bundles each page's TypeScript (browser only) into one script, each
 * page's body gets the shared head (pages.ts), and the stylesheets the pages name and the icon are
 * copied next to them. Workspace packages resolve to their sources (their `@live-captions/source`
 * export condition), so the pages never depend on another package's build.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { PAGES, pageDocument, stylesheetFile } from './pages.js';

const packageRoot = fileURLToPath(new URL('../', import.meta.url));

export interface BuildPagesOptions {
  /** Output folder; default `dist/pages` of this package. */
  outDir?: string;
  /** Minify the scripts. @defaultValue false (readable in the browser's tools) */
  minify?: boolean;
}

export interface BuildPagesResult {
  outDir: string;
  files: string[];
  /** Every source file the pages were made of (scripts esbuild read, static files copied). */
  inputs: string[];
}

/** Which page scripts each site bundles; its pages, and the stylesheets they name: pages.ts. */
const SCRIPTS: Record<keyof typeof PAGES, string[]> = {
  capture: ['pages/capture.ts', 'worklet/capture-worklet.ts'],
  ui: [
    'pages/home.ts',
    'pages/links.ts',
    'pages/now.ts',
    'pages/editor.ts',
    'pages/overlay.ts',
    'pages/audience.ts',
  ],
};
const ICON = 'icons/favicon.svg';

/**
 * Builds the sites beside `outDir`, then moves each file in by a rename, which replaces a file
 * atomically, and removes what the build no longer makes. A server serving `outDir` (`pnpm start`,
 * a test's gateway) or a second build running at once never finds a page, script or icon missing,
 * as it did while the folder was emptied and written again.
 */
export async function build(options: BuildPagesOptions = {}): Promise<BuildPagesResult> {
  const outDir = resolve(options.outDir ?? join(packageRoot, 'dist/pages'));
  mkdirSync(dirname(outDir), { recursive: true });
  const staging = mkdtempSync(`${outDir}.build-`);
  try {
    const inputs = await buildInto(staging, options);
    return { outDir, files: publish(staging, outDir), inputs };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string, under = ''): string[] {
  return readdirSync(join(dir, under), { withFileTypes: true }).flatMap((entry) => {
    const path = join(under, entry.name);
    if (entry.isDirectory()) return filesUnder(dir, path);
    return entry.isFile() ? [path] : [];
  });
}

/** Moves the staged files into `outDir` and removes the files it had that the build did not make. */
function publish(staging: string, outDir: string): string[] {
  const built = filesUnder(staging).sort();
  for (const file of built) {
    mkdirSync(dirname(join(outDir, file)), { recursive: true });
    renameSync(join(staging, file), join(outDir, file));
  }
  const made = new Set(built);
  for (const file of filesUnder(outDir)) if (!made.has(file)) rmSync(join(outDir, file), { force: true });
  return built.map((file) => join(outDir, file));
}

/** Bundles, writes and copies every site into `outDir`; returns the source files read. */
async function buildInto(outDir: string, options: BuildPagesOptions): Promise<string[]> {
  const inputs = new Set<string>();
  for (const [site, pages] of Object.entries(PAGES)) {
    const siteDir = join(outDir, site);
    mkdirSync(siteDir, { recursive: true });
    const result = await esbuild.build({
      entryPoints: SCRIPTS[site as keyof typeof PAGES].map((entry) =>
        join(packageRoot, 'src/browser', entry),
      ),
      outdir: siteDir,
      entryNames: '[name]',
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: ['chrome109', 'firefox115', 'safari16'],
      minify: options.minify ?? false,
      sourcemap: 'linked',
      legalComments: 'none',
      logLevel: 'silent',
      metafile: true,
      conditions: ['@live-captions/source'],
    });
    for (const path of Object.keys(result.metafile.inputs)) inputs.add(resolve(process.cwd(), path));
    const output = (name: string) => join(siteDir, name);
    for (const [name, page] of Object.entries(pages)) {
      const body = join(packageRoot, 'static', site, name);
      writeFileSync(output(name), pageDocument(page, readFileSync(body, 'utf8')));
      inputs.add(body);
    }
    const stylesheets = new Set(Object.values(pages).flatMap((page) => page.stylesheets.map(stylesheetFile)));
    for (const file of [...[...stylesheets].map((name) => `css/${name}`), ICON]) {
      const source = join(packageRoot, 'static', file);
      copyFileSync(source, output(file.split('/').pop()!));
      inputs.add(source);
    }
  }
  return [...inputs].sort();
}
