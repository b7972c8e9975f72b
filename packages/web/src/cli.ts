// `pnpm --filter @live-captions/web build:pages`: bundles the pages into dist/pages.
import { buildPages } from './index.js';

const started = performance.now();
const result = await buildPages();
console.log(
  `web: ${result.files.length} files in ${result.outDir} (${Math.round(performance.now() - started)} ms)`,
);
