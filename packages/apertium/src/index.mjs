// How Apertium APy (Debian's `apertium-apy`) is started on one address: by `pnpm start`
// (scripts/start-stack.mjs) on 127.0.0.1:2737, and by tests and benchmarks on a free loopback
// port (packages/test-services). APy binds every interface and has no option for it, so it runs
// through apertium-loopback.py (beside this file) with the interpreter of APy's own script (Debian's
// Python, which has Tornado; another python3 first on the PATH may not).
import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where Debian's Apertium pair packages put their modes (APy serves every pair found there). */
export const APERTIUM_MODES = '/usr/share/apertium/modes';

const LAUNCHER = fileURLToPath(new URL('./apertium-loopback.py', import.meta.url));

/** The `apertium-apy` script on the PATH, or undefined when it is not installed. */
export function apertiumApyScript(path = process.env.PATH ?? '') {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    try {
      const text = readFileSync(join(dir, 'apertium-apy'), 'utf8');
      return { path: join(dir, 'apertium-apy'), firstLine: text.split('\n', 1)[0] ?? '' };
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The Python that runs `apertium-apy` (its script's interpreter). */
export function apertiumPython(path = process.env.PATH ?? '') {
  const first = apertiumApyScript(path)?.firstLine ?? '';
  if (first.startsWith('#!')) return first.slice(2).trim().split(/\s+/)[0];
  return '/usr/bin/python3';
}

/**
 * The command that runs APy on `address:port` with the pairs of `modes`; `args` are APy's own
 * options (before the modes directory).
 */
export function apertiumCommand({ address, port, args = [], modes = APERTIUM_MODES }) {
  return {
    command: apertiumPython(),
    args: [LAUNCHER, address, '-p', String(port), ...args, modes],
  };
}
