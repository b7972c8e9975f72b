/**
 * A stated background load for benchmarks that compare two sides under contention: N processes
 * that each keep one core busy, started before the first measurement and stopped at exit, so
 * both sides run beside the same neighbours. And what else was using the CPUs, named, because
 * on a shared machine the stated load is never the only one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * `same`: the loaders stay in the benchmark's session, as `pnpm start`'s ffmpeg, relay and
 * outputs stay in the stack's: the scheduler weighs every thread alike. `own`: each loader in a
 * session of its own, so with autogroup scheduling (Linux's default on desktops and this VM) each
 * counts as one group against the benchmark's whole session, as another login's or another
 * container's work does.
 */
export type LoadSession = 'same' | 'own';

export interface BackgroundLoad {
  /** How the load was made, for the report. */
  describe: string;
  pids: number[];
  stop(): void;
}

/** Starts `processes` busy loops (`for (;;) {}` in a Node process each); 0 starts nothing. */
export function startBackgroundLoad(processes: number, session: LoadSession): BackgroundLoad {
  const children: ChildProcess[] = [];
  for (let i = 0; i < processes; i++) {
    children.push(
      spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore', detached: session === 'own' }),
    );
  }
  const stop = () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', stop);
  return {
    pids: children.map((child) => child.pid ?? 0),
    describe:
      processes === 0
        ? 'no stated load'
        : `stated load: ${processes} busy-loop process${processes === 1 ? '' : 'es'} (${session} session)`,
    stop,
  };
}

/** A process's name: its command, and for an interpreter the tail of its script's path. */
function describeProcess(pid: string, command: string): string {
  if (!['node', 'python3', 'python', 'bash', 'sh'].includes(command)) return command;
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1);
    const script = args.find((a) => a.length > 0 && !a.startsWith('-') && a !== 'tsx');
    return script ? `${command} ${script.split('/').slice(-3).join('/')}` : command;
  } catch {
    return command;
  }
}

/** CPU ticks (user + system) of every process now, by pid, with its command name. */
function ticks(): Map<number, { name: string; ticks: number }> {
  const out = new Map<number, { name: string; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      out.set(Number(entry), {
        name: describeProcess(entry, stat.slice(stat.indexOf('(') + 1, close)),
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * The busiest processes over the next `ms`, other than `exclude` (the benchmark and its load),
 * as "name 93 %, name 41 %"; Linux only ('' elsewhere).
 */
export async function otherBusyProcesses(exclude: ReadonlySet<number>, ms = 1000, top = 5): Promise<string> {
  let before: ReturnType<typeof ticks>;
  try {
    before = ticks();
  } catch {
    return '';
  }
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = ticks();
  const busy = [...after]
    .filter(([pid]) => !exclude.has(pid))
    .map(([pid, now]) => ({
      name: now.name,
      pct: (now.ticks - (before.get(pid)?.ticks ?? now.ticks)) / (ms / 1000),
    }))
    .filter((p) => p.pct >= 5)
    .sort((a, b) => b.pct - a.pct);
  const total = busy.reduce((sum, p) => sum + p.pct, 0);
  const named = busy
    .slice(0, top)
    .map((p) => `${p.name} ${p.pct.toFixed(0)} %`)
    .join(', ');
  return busy.length === 0
    ? 'nothing else above 5 % of a core'
    : `${total.toFixed(0)} % of a core in all: ${named}`;
}
