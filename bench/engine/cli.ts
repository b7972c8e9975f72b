// whisper-cli's side of `pnpm bench engine`: the CLI built from the addon's own build tree (same
// whisper.cpp source, same flags), run on N copies of one WAV in one process, each decode timed
// from the moment the CLI starts saving one file's output to the moment it starts saving the
// next: one warm decode, plus the CLI's WAV read and JSON write, which ours does not pay.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export interface CliSide {
  /** The whisper-cli binary. */
  path: string;
  /** Where the last run's `-ojf` JSON is (`<base>.json`). */
  outputBase: string;
  threads: number;
}

/** Builds whisper-cli in the addon's build tree when it is not there yet. */
export function ensureCli(buildDir: string, threads: number): string {
  const cli = join(buildDir, 'bin/whisper-cli');
  if (existsSync(cli)) return cli;
  console.log('building whisper-cli from the addon build tree (same source, same flags)...');
  const built = spawnSync('cmake', ['--build', buildDir, '--target', 'whisper-cli', '-j', String(threads)], {
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('cannot build whisper-cli');
  return cli;
}

/**
 * whisper-cli's flags for the decode the benchmark asks of ours: timestamp tokens on (no `-nt`,
 * which would skip them), token timestamps on (`-ojf`, whose JSON also gives us its output),
 * greedy without fallback, non-speech tokens suppressed.
 */
function cliArgs(side: CliSide, model: string, wav: string, files: number, audioCtx: number): string[] {
  return [
    '-m',
    model,
    ...Array.from({ length: files }, () => ['-f', wav, '-of', side.outputBase]).flat(),
    '-t',
    String(side.threads),
    '-l',
    'en',
    '-bs',
    '1',
    '-bo',
    '1',
    '-nf',
    '-sns',
    '-ojf',
    '-ac',
    String(audioCtx),
  ];
}

/**
 * Decodes `wav` `decodes` + 1 times in one whisper-cli process and returns the wall time of each
 * decode after the first (the first pays the state's set-up, which ours paid before timing). The
 * CLI prints "saving output to" on stderr (unbuffered) when each file's decode is done; the gap
 * between two such lines is one decode. The lines are stamped by this process's event loop, the
 * same loop that sees our decodes settle, so both sides are observed alike.
 */
export async function cliDecodes(
  side: CliSide,
  model: string,
  wav: string,
  decodes: number,
  audioCtx: number,
) {
  const child = spawn(side.path, cliArgs(side, model, wav, decodes + 1, audioCtx), {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stamps: number[] = [];
  let stderr = '';
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => {
    const now = performance.now();
    const text = chunk.toString();
    stderr += text;
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.includes('saving output to')) stamps.push(now);
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`whisper-cli failed (${code}): ${stderr}`);
  if (stamps.length !== decodes + 1) {
    throw new Error(`whisper-cli saved ${stamps.length} outputs, expected ${decodes + 1}`);
  }
  return stamps.slice(1).map((stamp, i) => stamp - stamps[i]!);
}
