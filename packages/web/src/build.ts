/**
 * The pages' build: esbuild bundles each page's TypeScript (browser only) into one script, and
 * the HTML, CSS and icon files are copied next to it. Workspace packages resolve to their sources
 * (their `@live-captions/source` export condition), so the pages never depend on another
 * package's build.
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

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

/** Which page scripts and static files each site gets. */
const SITES = {
  capture: {
    scripts: ['pages/capture.ts', 'worklet/capture-worklet.ts'],
    files: [
      'capture/index.html',
      'css/reset.css',
      'css/base.css',
      'css/components.css',
      'css/capture.css',
      'icons/favicon.svg',
    ],
  },
  ui: {
    scripts: ['pages/home.ts', 'pages/links.ts', 'pages/editor.ts', 'pages/overlay.ts', 'pages/audience.ts'],
    files: [
      'ui/index.html',
      'ui/links.html',
      'ui/editor.html',
      'ui/overlay.html',
      'ui/audience.html',
      'css/reset.css',
      'css/base.css',
      'css/components.css',
      'css/links.css',
      'css/editor.css',
      'css/overlay.css',
      'css/audience.css',
      'css/audience-dark.css',
      'icons/favicon.svg',
    ],
  },
} as const;

export async function build(options: BuildPagesOptions = {}): Promise<BuildPagesResult> {
  const outDir = options.outDir ?? join(packageRoot, 'dist/pages');
  rmSync(outDir, { recursive: true, force: true });
  const files: string[] = [];
  const inputs = new Set<string>();
  for (const [site, { scripts, files: statics }] of Object.entries(SITES)) {
    const siteDir = join(outDir, site);
    mkdirSync(siteDir, { recursive: true });
    const result = await esbuild.build({
      entryPoints: scripts.map((entry) => join(packageRoot, 'src/browser', entry)),
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
    for (const file of statics) {
      const source = join(packageRoot, 'static', file);
      const target = join(siteDir, file.split('/').pop()!);
      copyFileSync(source, target);
      files.push(target);
      inputs.add(source);
    }
  }
  return { outDir, files, inputs: [...inputs].sort() };
}
