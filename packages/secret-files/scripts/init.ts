// `pnpm secrets:init [--env-file .env.production] [--dir secrets]`: writes the relay's private
// configuration, the matching relay-tokens.env and caption-local.env. Never overwrites a file.
// `make secrets` runs this file in a bare Node container (no install): relative imports only.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { initSecrets } from '../src/init.js';

const { values } = parseArgs({
  options: {
    'env-file': { type: 'string' },
    dir: { type: 'string', default: 'secrets' },
  },
});

try {
  const result = initSecrets({
    dir: resolve(values.dir!),
    envFile: values['env-file'] ? resolve(values['env-file']) : undefined,
  });
  for (const path of result.written) console.log(`wrote ${path}`);
  for (const path of result.kept) console.log(`kept  ${path} (exists; never overwritten)`);
} catch (error) {
  console.error(`secrets:init: ${(error as Error).message}`);
  process.exit(1);
}
