/**
 * Node side of the web package: where the built pages are, and the esbuild step that builds them.
 * Services serve these folders as static files (they never import each other).
 */
import { fileURLToPath } from 'node:url';

const pages = new URL('../dist/pages/', import.meta.url);

/** Everything `pnpm build` (or `buildPages`) writes: one folder per site. */
export const pagesDir = fileURLToPath(pages);

/** The capture page, its worklet and styles: served by the speech service at `/`. */
export const captureDir = fileURLToPath(new URL('capture/', pages));

/** index, links hub, editor and overlay: served by the UI service. */
export const uiDir = fileURLToPath(new URL('ui/', pages));

export type { BuildPagesOptions, BuildPagesResult } from './build.js';

/** Bundles the pages into `pagesDir` (or `options.outDir`); loads esbuild only when called. */
export async function buildPages(options: import('./build.js').BuildPagesOptions = {}) {
  const { build } = await import('./build.js');
  return build(options);
}
