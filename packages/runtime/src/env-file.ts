import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

const ASSIGNMENT = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=/;

/**
 * Parses a dotenv-style file with Node's own parser (`KEY=value`, `#` comments, quotes,
 * `export`). A line that is not an assignment is refused, naming it: Node's parser skips such a
 * line, and a typo in a hand-edited file must not silently drop a setting.
 */
export function parseEnvFile(text: string): Record<string, string> {
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line !== '' && !line.startsWith('#') && !ASSIGNMENT.test(line))
      throw new Error(`line ${index + 1}: expected KEY=value`);
  }
  return parseEnv(text) as Record<string, string>;
}

/** Reads an env file; `undefined` when it does not exist. */
export function readEnvFile(path: string): Record<string, string> | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return parseEnvFile(text);
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`);
  }
}

/**
 * The environment with `caption-local.env` (the service access token, written by `pnpm
 * secrets:init`) under it: `CAPTION_LOCAL_ENV_FILE`, else that file in `secretsDir` (the caller's
 * repository `secrets/` folder). A variable set in the environment wins.
 */
export function withCaptionLocalEnv(env: NodeJS.ProcessEnv, secretsDir: string): NodeJS.ProcessEnv {
  const file = env.CAPTION_LOCAL_ENV_FILE ?? `${secretsDir}caption-local.env`;
  return { ...(readEnvFile(file) ?? {}), ...env };
}
