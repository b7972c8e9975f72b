// What `pnpm start` (start-stack.mjs) asks before it says the stack is ready: whether an address
// answers, and how the stack gets its translation engine (Apertium APy).
import { existsSync } from 'node:fs';
import { APERTIUM_MODES, apertiumApyScript } from '@live-captions/apertium';

/** Whether `url` answers 200 within 2 s. */
export async function answersOk(url, headers = {}) {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * How the stack gets its translation engine at `url` (where the outputs service looks for it by
 * default): `start` (ours), or why not, as one `line` said once. An operator who set
 * OUTPUTS_APERTIUM_URL runs their own; one already answering there (Debian's
 * apertium-apy.service, say) is used as it is.
 */
export async function apertiumPlan(url, { bold, dim }) {
  if (process.env.OUTPUTS_APERTIUM_URL) return { start: false };
  if (!apertiumApyScript()) {
    return {
      start: false,
      line: `translation through Apertium is off: apertium-apy is not installed (${bold('sudo apt install apertium-apy apertium-eng-spa apertium-eng-cat')}, then pnpm start again)`,
    };
  }
  if (await answersOk(`${url}/listPairs`)) {
    return { start: false, line: dim(`Apertium APy already answers on ${url}; using it`) };
  }
  if (!existsSync(APERTIUM_MODES)) {
    return {
      start: false,
      line: `translation through Apertium is off: no language pair is installed in ${APERTIUM_MODES} (${bold('sudo apt install apertium-eng-spa apertium-eng-cat')}, then pnpm start again)`,
    };
  }
  return { start: true };
}
