/**
 * The pages' build: esbuild bundles each page's TypeScript (browser only) into one script, each
 * page's body gets the shared head (pages.ts), and the stylesheets the pages name and the icon are
 * copied next to them. Workspace packages resolve to their sources (their `@live-captions/source`
 * export condition), so the pages never depend on another package's build.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
  ui: ['pages/home.ts', 'pages/links.ts', 'pages/editor.ts', 'pages/overlay.ts', 'pages/audience.ts'],
};
const ICON = 'icons/favicon.svg';

export async function build(options: BuildPagesOptions = {}): Promise<BuildPagesResult> {
  const outDir = options.outDir ?? join(packageRoot, 'dist/pages');
  rmSync(outDir, { recursive: true, force: true });
  const files: string[] = [];
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
    files.push(...Object.keys(result.metafile.outputs).map((path) => join(process.cwd(), path)));
    for (const path of Object.keys(result.metafile.inputs)) inputs.add(resolve(process.cwd(), path));
    const output = (name: string) => {
      const target = join(siteDir, name);
      files.push(target);
      return target;
    };
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
  return { outDir, files, inputs: [...inputs].sort() };
}
